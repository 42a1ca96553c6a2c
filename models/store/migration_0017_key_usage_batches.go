package store

// keyUsageBatchesSchema creates key_usage_batches: the id of every batch
// of key usage counts added to key_usage, written in the same
// transaction as its counts, so that a batch tried again after a failure
// whose outcome the process did not hear (the connection cut after the
// commit) is not added twice. written_at is when the batch was first
// tried (Unix seconds); rows older than models.KeyUsageBatchRetention are
// deleted with the old usage.
func keyUsageBatchesSchema(Dialect) []string {
	return []string{
		`CREATE TABLE key_usage_batches (
			id TEXT PRIMARY KEY,
			written_at {{bigint}} NOT NULL)`,
		`CREATE INDEX key_usage_batches_written_at ON key_usage_batches (written_at)`,
	}
}
