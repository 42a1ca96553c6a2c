package models

// PruneReport says what a retention pass removed.
type PruneReport struct {
	// DroppedPartitions names the monthly partitions dropped whole
	// (PostgreSQL).
	DroppedPartitions []string
	// DeletedSnapshots counts snapshots deleted row by row: on PostgreSQL
	// those of the partition that straddles the cutoff, on SQLite all.
	DeletedSnapshots int64
	// DeletedJobs counts finished snapshot jobs removed.
	DeletedJobs int64
}
