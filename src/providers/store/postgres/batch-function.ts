/**
 * `agent_services_batch(ops jsonb)`, installed by schema version 2 (its claim ops, `st` and `su`,
 * by version 3; version 4: `f` as one primary-key probe per id, the ops a keyed send makes first
 * in the `CASE`, numbers answered and locks taken without a query of their own, and numbered
 * inserts that hold their order lock shared and show their numbers as locks, see
 * settled-positions.ts): runs a transaction's queued reads and writes (or a process's claims),
 * in order, as ONE statement, so a round trip costs one Bind/Execute/Sync
 * whatever it carries (postgres.js sends a Sync, and PostgreSQL a ReadyForQuery, per statement).
 * Each op is a JSON array whose first element names it; what an op reads comes back as rows
 * tagged with the op's index `i` (`n`: a position, a count or a row count). A check that fails
 * (a version that moved, a cached read gone stale) raises SQLSTATE 40001 with the op's index as
 * DETAIL: the statement, and the transaction with it, fail, so a COMMIT sent behind it in the same
 * round trip rolls back. The plans of the statements inside are prepared once per connection.
 *
 * The function is VOLATILE (the default), so at READ COMMITTED each statement inside takes a new
 * snapshot: a `g` behind an `st` sees what was committed once the lock was decided, which one
 * SELECT doing both would not (its snapshot is taken before the lock). The claims rely on it.
 */
export const BATCH_FUNCTION = `
CREATE OR REPLACE FUNCTION agent_services_batch(ops jsonb)
RETURNS TABLE (i integer, id text, record text, version integer, n bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  op jsonb;
  k integer := -1;
  got bigint;
  seen text;
BEGIN
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    k := k + 1;
    CASE op->>0
    WHEN 'eg' THEN -- a cached record, checked: collection, id, version
      IF NOT EXISTS (SELECT FROM agent_services_records r WHERE r.collection = op->>1 AND r.id = op->>2 AND r.version = (op->>3)::integer) THEN
        RAISE EXCEPTION 'agent-services: %/% changed since it was read', op->>1, op->>2 USING ERRCODE = '40001', DETAIL = k::text;
      END IF;
    WHEN 'l' THEN -- transaction-level advisory locks, in the order given: [keys]
      FOR j IN 0 .. jsonb_array_length(op->1) - 1 LOOP
        PERFORM pg_advisory_xact_lock((op->1->>j)::bigint);
      END LOOP;
    WHEN 'f' THEN -- the rows of records just locked: collection, [ids]; one primary-key probe per id
      RETURN QUERY SELECT k, r.id, r.record, r.version, NULL::bigint FROM jsonb_array_elements_text(op->2) AS wanted(id)
        CROSS JOIN LATERAL (SELECT r.id, r.record, r.version FROM agent_services_records r WHERE r.collection = op->>1 AND r.id = wanted.id LIMIT 1) r;
    WHEN 'u' THEN -- update checked against the version read: collection, id, record, version
      UPDATE agent_services_records r SET record = op->>3, version = r.version + 1 WHERE r.collection = op->>1 AND r.id = op->>2 AND r.version = (op->>4)::integer;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'agent-services: %/% changed since it was read', op->>1, op->>2 USING ERRCODE = '40001', DETAIL = k::text;
      END IF;
    WHEN 'i' THEN -- insert: collection, id, partition, sequence, record
      INSERT INTO agent_services_records (collection, id, part, position, record) VALUES (op->>1, op->>2, op->>3, nextval((op->>4)::regclass), op->>5);
    WHEN 'ls' THEN -- transaction-level shared advisory locks (a writer of numbered records), in the order given: [keys]
      FOR j IN 0 .. jsonb_array_length(op->1) - 1 LOOP
        PERFORM pg_advisory_xact_lock_shared((op->1->>j)::bigint);
      END LOOP;
    WHEN 'nb' THEN -- an insert numbered here: collection, partition, text before the number, text after it, sequence, number space
      got := nextval((op->>5)::regclass);
      -- The number, held shared until the commit, where readers see it (pg_locks): its low 32 bits as an int4.
      PERFORM pg_advisory_xact_lock_shared((op->>6)::integer, ((got % 4294967296) - CASE WHEN got % 4294967296 >= 2147483648 THEN 4294967296 ELSE 0 END)::integer);
      INSERT INTO agent_services_records (collection, id, part, position, record) VALUES (op->>1, got::text, op->>2, got, (op->>3) || got || (op->>4));
      i := k; id := NULL; record := NULL; version := NULL; n := got;
      RETURN NEXT;
    WHEN 'g' THEN -- get: collection, id
      RETURN QUERY SELECT k, r.id, r.record, r.version, NULL::bigint FROM agent_services_records r WHERE r.collection = op->>1 AND r.id = op->>2;
    WHEN 'ec' THEN -- a cached count, checked: collection, partition, count (0: whether any row is there)
      IF (op->>3)::bigint = 0 THEN
        got := CASE WHEN EXISTS (SELECT FROM agent_services_records r WHERE r.collection = op->>1 AND r.part = op->>2) THEN 1 ELSE 0 END;
      ELSE
        SELECT count(*) INTO got FROM agent_services_records r WHERE r.collection = op->>1 AND r.part = op->>2;
      END IF;
      IF got <> (op->>3)::bigint THEN
        RAISE EXCEPTION 'agent-services: a count of % changed since it was read', op->>1 USING ERRCODE = '40001', DETAIL = k::text;
      END IF;
    WHEN 'st' THEN -- a claim: the session-level advisory lock, if free (n = 1 taken, 0 not): key
      i := k; id := NULL; record := NULL; version := NULL; n := pg_try_advisory_lock((op->>1)::bigint)::integer;
      RETURN NEXT;
    WHEN 'su' THEN -- a claim's end: the session-level advisory lock given back: key
      PERFORM pg_advisory_unlock((op->>1)::bigint);
    WHEN 'w' THEN -- update of a record never read, which must exist: collection, id, record
      UPDATE agent_services_records r SET record = op->>3, version = r.version + 1 WHERE r.collection = op->>1 AND r.id = op->>2;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'no record % in %', op->>2, op->>1 USING ERRCODE = 'P0002', DETAIL = k::text;
      END IF;
    WHEN 'd' THEN -- remove, checked against the version read (null: none read): collection, id, version
      DELETE FROM agent_services_records r WHERE r.collection = op->>1 AND r.id = op->>2 AND (op->>3 IS NULL OR r.version = (op->>3)::integer);
      GET DIAGNOSTICS got = ROW_COUNT;
      i := k; id := NULL; record := NULL; version := NULL; n := got;
      RETURN NEXT;
    WHEN 'po' THEN -- a page, oldest first: collection, partition, after, limit
      RETURN QUERY SELECT k, r.id, r.record, r.version, r.position FROM agent_services_records r
        WHERE r.collection = op->>1 AND r.part = op->>2 AND r.position > (op->>3)::bigint ORDER BY r.position ASC LIMIT (op->>4)::bigint;
    WHEN 'pn' THEN -- a page, newest first: collection, partition, before, limit
      RETURN QUERY SELECT k, r.id, r.record, r.version, r.position FROM agent_services_records r
        WHERE r.collection = op->>1 AND r.part = op->>2 AND r.position < (op->>3)::bigint ORDER BY r.position DESC LIMIT (op->>4)::bigint;
    WHEN 'ep' THEN -- a cached page, checked: collection, partition, 'o' or 'n', bound, limit, its ids and versions
      IF op->>3 = 'o' THEN
        SELECT coalesce(string_agg(p.id || ':' || p.version, ',' ORDER BY p.position ASC), '') INTO seen FROM (SELECT r.id, r.version, r.position FROM agent_services_records r
          WHERE r.collection = op->>1 AND r.part = op->>2 AND r.position > (op->>4)::bigint ORDER BY r.position ASC LIMIT (op->>5)::bigint) p;
      ELSE
        SELECT coalesce(string_agg(p.id || ':' || p.version, ',' ORDER BY p.position DESC), '') INTO seen FROM (SELECT r.id, r.version, r.position FROM agent_services_records r
          WHERE r.collection = op->>1 AND r.part = op->>2 AND r.position < (op->>4)::bigint ORDER BY r.position DESC LIMIT (op->>5)::bigint) p;
      END IF;
      IF seen <> op->>6 THEN
        RAISE EXCEPTION 'agent-services: a page of % changed since it was read', op->>1 USING ERRCODE = '40001', DETAIL = k::text;
      END IF;
    WHEN 'c' THEN -- a count: collection, partition (null: the whole collection)
      IF op->>2 IS NULL THEN
        RETURN QUERY SELECT k, NULL::text, NULL::text, NULL::integer, count(*) FROM agent_services_records r WHERE r.collection = op->>1;
      ELSE
        RETURN QUERY SELECT k, NULL::text, NULL::text, NULL::integer, count(*) FROM agent_services_records r WHERE r.collection = op->>1 AND r.part = op->>2;
      END IF;
    WHEN 'a' THEN -- every record of a collection: collection
      RETURN QUERY SELECT k, r.id, r.record, r.version, r.position FROM agent_services_records r WHERE r.collection = op->>1 ORDER BY r.position;
    WHEN 'x' THEN -- a notice to the other processes: channel, payload
      PERFORM pg_notify(op->>1, op->>2);
    WHEN 'm' THEN -- a row of the world's state, kept if present: key, value
      INSERT INTO agent_services_meta (key, value) VALUES (op->>1, op->>2) ON CONFLICT (key) DO NOTHING;
    ELSE
      RAISE EXCEPTION 'agent_services_batch: unknown op %', op->>0;
    END CASE;
  END LOOP;
END
$fn$;
`;

/** The statement that runs one batch of ops. */
export const RUN_BATCH = 'SELECT i, id, record, version, n FROM agent_services_batch($1::text::jsonb)';
