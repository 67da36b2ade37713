// What the checkpointer does now: between checkpoints it sleeps on
// CheckpointerMain; at work it waits on something else (DataFileWrite,
// DataFileSync, CheckpointWriteDelay, WALSync…) or on nothing (on the CPU,
// shown here as 'CPU'). The counters rise only when a checkpoint ends,
// which on a slow disk is seconds after its writes began to weigh on the
// load. Null to a role that may not read other processes' activity
// (pg_read_all_stats), which sees every column of the row null.
export const CHECKPOINTER_WAIT = `(SELECT CASE WHEN backend_start IS NOT NULL THEN coalesce(wait_event, 'CPU') END
  FROM pg_stat_activity WHERE backend_type = 'checkpointer' LIMIT 1) AS checkpointer_wait`
