package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/models"
)

// keyUsageRowsPerStatement bounds one batched upsert of key usage (seven
// parameters a row). The SQLite driver binds a statement's parameters in
// time that grows with the square of their count: 10,000 rows took 126 ms
// in statements of 200 rows, 82–89 ms in statements of 50, 115 ms of 25
// (BenchmarkAddKeyUsage).
const keyUsageRowsPerStatement = 50

// AddKeyUsage adds a batch's counts to the stored usage, at most once,
// in one transaction that records the batch's id in key_usage_batches
// then upserts keyUsageRowsPerStatement rows a statement: each row's
// numbers are added to the stored row of the same key, hour and route, so
// the counts of several processes sum. Hours are truncated to the UTC
// hour. A batch whose id is recorded already was written by an earlier
// call (one that failed after its commit, the connection cut before the
// answer came back): nothing is added again and the call succeeds. So
// after any failure the caller tries the same batch again, with its id
// and its counts unchanged, until a call succeeds.
func (s *Store) AddKeyUsage(ctx context.Context, batch models.KeyUsageBatch) error {
	if batch.ID == "" {
		return fmt.Errorf("%w: a key usage batch without an id", models.ErrInvalid)
	}
	counts := batch.Counts
	cells := make([]models.KeyUsageCell, 0, len(counts))
	for cell := range counts {
		cells = append(cells, cell)
	}
	// A fixed order keeps concurrent upserts of replicas from deadlocking.
	slices.SortFunc(cells, func(a, b models.KeyUsageCell) int {
		if a.KeyID != b.KeyID {
			return int(a.KeyID - b.KeyID)
		}
		if !a.Hour.Equal(b.Hour) {
			return a.Hour.Compare(b.Hour)
		}
		return strings.Compare(a.Route, b.Route)
	})
	err := s.session(ctx).Transaction(func(tx *gorm.DB) error {
		recorded := tx.Exec(`INSERT INTO key_usage_batches (id, written_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`,
			batch.ID, batch.At.Unix())
		if recorded.Error != nil {
			return recorded.Error
		}
		if recorded.RowsAffected == 0 {
			return nil // written by an earlier call
		}
		for rows := range slices.Chunk(cells, keyUsageRowsPerStatement) {
			var stmt strings.Builder
			stmt.WriteString(`INSERT INTO key_usage (key_id, hour, route, requests, rate_limited, client_errors, server_errors) VALUES `)
			args := make([]any, 0, 7*len(rows))
			for i, cell := range rows {
				if i > 0 {
					stmt.WriteString(", ")
				}
				stmt.WriteString("(?, ?, ?, ?, ?, ?, ?)")
				c := counts[cell]
				args = append(args, cell.KeyID, cell.Hour.Truncate(time.Hour).Unix(), cell.Route,
					c.Requests, c.RateLimited, c.ClientErrors, c.ServerErrors)
			}
			stmt.WriteString(` ON CONFLICT (key_id, hour, route) DO UPDATE SET
			requests = key_usage.requests + excluded.requests,
			rate_limited = key_usage.rate_limited + excluded.rate_limited,
			client_errors = key_usage.client_errors + excluded.client_errors,
			server_errors = key_usage.server_errors + excluded.server_errors`)
			if err := tx.Exec(stmt.String(), args...).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.translate(err)
	}
	return nil
}

// usageRow is a row of a usage query: the group's key, owner or day
// (those the query selects) and its summed counters.
type usageRow struct {
	KeyID         int64
	DiscordUserID string
	Day           int64
	Requests      int64
	RateLimited   int64
	ClientErrors  int64
	ServerErrors  int64
}

func (u usageRow) count() models.KeyUsageCount {
	return models.KeyUsageCount{Requests: u.Requests, RateLimited: u.RateLimited, ClientErrors: u.ClientErrors, ServerErrors: u.ServerErrors}
}

// sumColumns selects usageRow's counters.
const sumColumns = `SUM(requests) AS requests, SUM(rate_limited) AS rate_limited,
	SUM(client_errors) AS client_errors, SUM(server_errors) AS server_errors`

// KeyUsageReport reads one key's usage in the hours from since on, per UTC
// day and per route, with the key's creation and last use. An unknown key
// is models.ErrNotFound.
func (s *Store) KeyUsageReport(ctx context.Context, keyID int64, since time.Time) (models.KeyUsageReport, error) {
	var key models.APIKey
	if err := s.session(ctx).Select("id", "created_at", "last_used_at").Where("id = ?", keyID).Take(&key).Error; err != nil {
		return models.KeyUsageReport{}, s.translate(err)
	}
	report := models.KeyUsageReport{KeyID: key.ID, KeyCreatedAt: key.CreatedAt.UTC(), LastUsedAt: key.LastUsedAt, Routes: map[string]int64{}}
	if report.LastUsedAt != nil {
		last := report.LastUsedAt.UTC()
		report.LastUsedAt = &last
	}
	from := since.Truncate(time.Hour).Unix()
	var days []usageRow
	err := s.session(ctx).Raw(`SELECT hour - hour % 86400 AS day, `+sumColumns+`
		FROM key_usage WHERE key_id = ? AND hour >= ? GROUP BY hour - hour % 86400 ORDER BY day`, keyID, from).Scan(&days).Error
	if err != nil {
		return models.KeyUsageReport{}, s.translate(err)
	}
	for _, d := range days {
		report.Days = append(report.Days, models.KeyUsageDay{Day: time.Unix(d.Day, 0).UTC(), KeyUsageCount: d.count()})
	}
	var routes []struct {
		Route    string
		Requests int64
	}
	err = s.session(ctx).Raw(`SELECT route, SUM(requests) AS requests FROM key_usage
		WHERE key_id = ? AND hour >= ? GROUP BY route`, keyID, from).Scan(&routes).Error
	if err != nil {
		return models.KeyUsageReport{}, s.translate(err)
	}
	for _, r := range routes {
		report.Routes[r.Route] = r.Requests
	}
	return report, nil
}

// TopKeyUsage returns the limit keys with the most requests in the hours
// from since on, most first, with their owners.
func (s *Store) TopKeyUsage(ctx context.Context, since time.Time, limit int) ([]models.KeyUsageTotal, error) {
	var rows []usageRow
	err := s.session(ctx).Raw(`SELECT u.key_id, d.discord_user_id, u.requests, u.rate_limited, u.client_errors, u.server_errors
		FROM (SELECT key_id, `+sumColumns+` FROM key_usage WHERE hour >= ? GROUP BY key_id) AS u
		JOIN api_keys k ON k.id = u.key_id JOIN developers d ON d.id = k.developer_id
		ORDER BY u.requests DESC, u.key_id LIMIT ?`, since.Truncate(time.Hour).Unix(), limit).Scan(&rows).Error
	if err != nil {
		return nil, s.translate(err)
	}
	out := make([]models.KeyUsageTotal, len(rows))
	for i, r := range rows {
		out[i] = models.KeyUsageTotal{KeyID: r.KeyID, DiscordUserID: r.DiscordUserID, KeyUsageCount: r.count()}
	}
	return out, nil
}

// KeyUsageWindows sums, for every key still active (its owner not
// blacklisted) used in an hour from recentFrom on, its usage in the hours
// from recentFrom on (recent) and in those from since to recentFrom
// (baseline), with its owner, ordered by key: one row a key, summed by
// the database.
func (s *Store) KeyUsageWindows(ctx context.Context, since, recentFrom time.Time) ([]models.KeyUsageWindows, error) {
	var rows []struct {
		KeyID                                                                     int64
		DiscordUserID                                                             string
		CreatedAt                                                                 time.Time
		RecentRequests, RecentRateLimited, RecentClientErrors, RecentServerErrors int64
		BaseRequests, BaseRateLimited, BaseClientErrors, BaseServerErrors         int64
	}
	recent := recentFrom.Truncate(time.Hour).Unix()
	err := s.session(ctx).Raw(`SELECT u.key_id, d.discord_user_id, k.created_at,
			SUM(CASE WHEN u.hour >= @recent THEN u.requests ELSE 0 END) AS recent_requests,
			SUM(CASE WHEN u.hour >= @recent THEN u.rate_limited ELSE 0 END) AS recent_rate_limited,
			SUM(CASE WHEN u.hour >= @recent THEN u.client_errors ELSE 0 END) AS recent_client_errors,
			SUM(CASE WHEN u.hour >= @recent THEN u.server_errors ELSE 0 END) AS recent_server_errors,
			SUM(CASE WHEN u.hour < @recent THEN u.requests ELSE 0 END) AS base_requests,
			SUM(CASE WHEN u.hour < @recent THEN u.rate_limited ELSE 0 END) AS base_rate_limited,
			SUM(CASE WHEN u.hour < @recent THEN u.client_errors ELSE 0 END) AS base_client_errors,
			SUM(CASE WHEN u.hour < @recent THEN u.server_errors ELSE 0 END) AS base_server_errors
		FROM key_usage u JOIN api_keys k ON k.id = u.key_id JOIN developers d ON d.id = k.developer_id
		WHERE u.hour >= @since AND u.key_id IN (SELECT key_id FROM key_usage WHERE hour >= @recent)
			AND k.state = @active AND NOT d.blacklisted
		GROUP BY u.key_id, d.discord_user_id, k.created_at
		ORDER BY u.key_id`,
		sql.Named("since", since.Truncate(time.Hour).Unix()), sql.Named("recent", recent), sql.Named("active", models.KeyActive)).Scan(&rows).Error
	if err != nil {
		return nil, s.translate(err)
	}
	out := make([]models.KeyUsageWindows, len(rows))
	for i, r := range rows {
		out[i] = models.KeyUsageWindows{
			KeyID: r.KeyID, DiscordUserID: r.DiscordUserID, KeyCreatedAt: r.CreatedAt.UTC(),
			Recent:   models.KeyUsageCount{Requests: r.RecentRequests, RateLimited: r.RecentRateLimited, ClientErrors: r.RecentClientErrors, ServerErrors: r.RecentServerErrors},
			Baseline: models.KeyUsageCount{Requests: r.BaseRequests, RateLimited: r.BaseRateLimited, ClientErrors: r.BaseClientErrors, ServerErrors: r.BaseServerErrors},
		}
	}
	return out, nil
}

// DeleteKeyUsageBefore deletes the usage of hours that started before
// before, and returns how many rows went.
func (s *Store) DeleteKeyUsageBefore(ctx context.Context, before time.Time) (int64, error) {
	result := s.session(ctx).Exec(`DELETE FROM key_usage WHERE hour < ?`, before.Truncate(time.Hour).Unix())
	return result.RowsAffected, s.translate(result.Error)
}

// DeleteKeyUsageBatchesBefore deletes the ids of the usage batches first
// tried before before (see AddKeyUsage), and returns how many went.
func (s *Store) DeleteKeyUsageBatchesBefore(ctx context.Context, before time.Time) (int64, error) {
	result := s.session(ctx).Exec(`DELETE FROM key_usage_batches WHERE written_at < ?`, before.Unix())
	return result.RowsAffected, s.translate(result.Error)
}
