/** One event of the runtime's ordered log, as `GET /_sim/events` answers it. */
export interface EventRecord {
  seq: number;
  type: string;
  agent_id: string | null;
  at: string;
  data: Record<string, unknown>;
}
