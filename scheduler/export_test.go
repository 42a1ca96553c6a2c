package scheduler

import "time"

// SetStopGrace sets how long s's finishing writes go on once a stop began.
func (s *Scheduler) SetStopGrace(grace time.Duration) { s.stopGrace = grace }
