package store

// snapshotJobOrderSchema puts the index of due snapshot jobs in claim
// order, (due_at, slot): a claim then reads the first due jobs of the
// index and stops, however many are pending. On due_at alone, every claim
// sorted all the jobs due at one moment — a whole slot's worth, as
// planning makes them due together — which made a tick of 10,000 clans
// quadratic.
func snapshotJobOrderSchema(Dialect) []string {
	return []string{
		`DROP INDEX snapshot_jobs_due`,
		`CREATE INDEX snapshot_jobs_due ON snapshot_jobs (due_at, slot) WHERE state IN ('pending', 'running')`,
	}
}
