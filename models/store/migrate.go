package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// migration is one versioned change of the schema. Versions are applied in
// ascending order, each in its own transaction together with its row in
// schema_migrations, so a failed migration leaves nothing half-done.
type migration struct {
	version int
	name    string
	// statements returns the SQL to run on the given engine.
	statements func(d Dialect) []string
}

// migrationLockID is the PostgreSQL advisory lock that serialises
// migrations when several replicas start at once.
const migrationLockID = 0x63726f776e73 // "crowns"

// SchemaMigration is a row of schema_migrations: one applied migration.
type SchemaMigration struct {
	Version   int       `gorm:"primaryKey;autoIncrement:false"`
	Name      string    `gorm:"not null"`
	AppliedAt time.Time `gorm:"not null"`
}

// TableName names the table of applied migrations.
func (SchemaMigration) TableName() string { return "schema_migrations" }

// Migrate applies every migration this binary knows and the database lacks,
// and returns the names of those it applied. It refuses to run against a
// database migrated by a newer release.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	return s.migrate(ctx, migrations())
}

// migrate applies the migrations of all, in order, that the database
// lacks; all's last is the newest version it accepts the database at.
func (s *Store) migrate(ctx context.Context, all []migration) ([]string, error) {
	latest := all[len(all)-1].version
	var applied []string
	err := s.withMigrationLock(ctx, func(db *gorm.DB) error {
		if err := db.Exec(s.dialect.sql(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version {{bigint}} PRIMARY KEY,
			name TEXT NOT NULL,
			applied_at {{time}} NOT NULL)`)).Error; err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var done []SchemaMigration
		if err := db.Order("version").Find(&done).Error; err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		have := make(map[int]bool, len(done))
		for _, m := range done {
			have[m.Version] = true
		}
		// done is in version order: its last is the schema's version.
		if len(done) > 0 && done[len(done)-1].Version > latest {
			newest := done[len(done)-1]
			return fmt.Errorf("database schema is at version %d (%s), newer than this binary knows (%d): run a newer release", newest.Version, newest.Name, latest)
		}
		for _, m := range all {
			if have[m.version] {
				continue
			}
			if err := s.apply(db, m); err != nil {
				return err
			}
			applied = append(applied, fmt.Sprintf("%04d_%s", m.version, m.name))
		}
		return nil
	})
	return applied, s.translate(err)
}

// SchemaVersion returns the highest applied migration version (0 when none).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var version int
	err := s.session(ctx).Raw(`SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&version).Error
	return version, s.translate(err)
}

func (s *Store) apply(db *gorm.DB, m migration) error {
	return db.Transaction(func(tx *gorm.DB) error {
		for _, stmt := range m.statements(s.dialect) {
			if err := tx.Exec(s.dialect.sql(stmt)).Error; err != nil {
				return fmt.Errorf("migration %04d %s: %w", m.version, m.name, err)
			}
		}
		row := SchemaMigration{Version: m.version, Name: m.name, AppliedAt: s.clock.Now().UTC()}
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("record migration %04d: %w", m.version, err)
		}
		return nil
	})
}

// withMigrationLock runs fn while no other process migrates the same
// database: a session advisory lock on PostgreSQL (held on one pinned
// connection), an immediate transaction (SQLite's single-writer lock)
// otherwise.
func (s *Store) withMigrationLock(ctx context.Context, fn func(db *gorm.DB) error) error {
	if s.dialect != DialectPostgres {
		// One immediate transaction: the read of applied versions and the
		// migrations themselves hold SQLite's write lock together; each
		// migration runs in a savepoint inside it.
		return s.session(ctx).Transaction(fn)
	}
	return s.withoutSessionLimits(ctx, func(conn *gorm.DB) error {
		if err := conn.Exec(`SELECT pg_advisory_lock(?)`, migrationLockID).Error; err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		defer conn.Exec(`SELECT pg_advisory_unlock(?)`, migrationLockID)
		return fn(conn)
	})
}

// sql fills the engine-specific placeholders of a portable statement:
// {{id}} an auto-increment primary key, {{bigint}}, {{bytes}}, {{time}}
// (a timestamp with time zone), {{bool}}.
func (d Dialect) sql(stmt string) string {
	var pairs []string
	switch d {
	case DialectPostgres:
		pairs = []string{"{{id}}", "BIGSERIAL PRIMARY KEY", "{{bigint}}", "BIGINT",
			"{{bytes}}", "BYTEA", "{{time}}", "TIMESTAMPTZ", "{{bool}}", "BOOLEAN"}
	default:
		pairs = []string{"{{id}}", "INTEGER PRIMARY KEY AUTOINCREMENT", "{{bigint}}", "INTEGER",
			"{{bytes}}", "BLOB", "{{time}}", "DATETIME", "{{bool}}", "BOOLEAN"}
	}
	return strings.NewReplacer(pairs...).Replace(stmt)
}
