package store

import (
	"database/sql"
	"fmt"

	"github.com/crownsdev/crowns/models"
	"gorm.io/gorm"
)

// queryCounterName names the GORM callbacks that count statements.
const queryCounterName = "crowns:count_queries"

// countQueries registers GORM callbacks that count every statement the
// store sends (queries, raw statements, creates, updates and deletes), for
// QueryCount.
func (s *Store) countQueries() error {
	count := func(db *gorm.DB) {
		if models.IsBackground(db.Statement.Context) {
			s.backgroundQueries.Add(1)
		} else {
			s.requestQueries.Add(1)
		}
	}
	callbacks := s.db.Callback()
	for _, err := range []error{
		callbacks.Query().After("gorm:query").Register(queryCounterName, count),
		callbacks.Row().After("gorm:row").Register(queryCounterName, count),
		callbacks.Raw().After("gorm:raw").Register(queryCounterName, count),
		callbacks.Create().After("gorm:create").Register(queryCounterName, count),
		callbacks.Update().After("gorm:update").Register(queryCounterName, count),
		callbacks.Delete().After("gorm:delete").Register(queryCounterName, count),
	} {
		if err != nil {
			return fmt.Errorf("register the query counter: %w", err)
		}
	}
	return nil
}

// QueryCount is the number of statements this store has sent to the
// database since it was opened (transaction begin and commit not
// included). It costs one atomic add per statement; the serve command
// exports its two parts as the metric crowns_database_statements_total,
// and tests read it to prove a path costs no query.
func (s *Store) QueryCount() int64 { return s.requestQueries.Load() + s.backgroundQueries.Load() }

// RequestQueryCount is the part of QueryCount sent with contexts not
// marked by models.AsBackground: counted apart, so that it never moves
// with background work (a difference of the two counts read one after
// the other would, and could go down).
func (s *Store) RequestQueryCount() int64 { return s.requestQueries.Load() }

// BackgroundQueryCount is the part of QueryCount sent with contexts
// marked by models.AsBackground.
func (s *Store) BackgroundQueryCount() int64 { return s.backgroundQueries.Load() }

// PoolStats are the statistics of the store's connection pool (open, in
// use and idle connections, waits for one), for the serve command's
// metrics.
func (s *Store) PoolStats() sql.DBStats {
	sqlDB, err := s.db.DB()
	if err != nil {
		return sql.DBStats{}
	}
	return sqlDB.Stats()
}
