import postgres, { type Sql } from 'postgres';

/** Options of every pool: notices are not errors; connections say whose they are. */
export const COMMON = { onnotice: () => {}, connection: { application_name: 'agent-services' } };

/**
 * The pools of one process's store: the main one for units and reads (`maxConnections`, default
 * 20; `onStatement` hears the text of each statement it sends) and a small one for sequences, the
 * clock and LISTEN, so that these never wait behind busy units.
 */
export function openPools(url: string, options: { maxConnections?: number; onStatement?: (text: string) => void }): { sql: Sql; control: Sql } {
  const onStatement = options.onStatement;
  const debug = onStatement && ((_connection: number, text: string) => onStatement(text));
  return {
    sql: postgres(url, { ...COMMON, max: options.maxConnections ?? 20, ...(debug ? { debug } : {}) }),
    control: postgres(url, { ...COMMON, max: 2 }),
  };
}
