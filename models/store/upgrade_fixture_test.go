package store_test

import (
	"bytes"
	"context"
	"testing"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// upgradeSecret is the secret the earlier releases sealed the fixture's
// keys under.
var upgradeSecret = bytes.Repeat([]byte("u"), 32)

// The Discord users of the fixture's developers, and the moderator.
const (
	ana       = "400000000000000001"
	ben       = "400000000000000002"
	zoe       = "400000000000000003"
	dan       = "400000000000000004"
	eve       = "400000000000000005"
	moderator = "discord:400000000000000099"
)

// The fixture's clans: one tracked with weekly snapshots, one without,
// one untracked.
const (
	weeklyClan   = "2PCGJL"
	fourHourly   = "2P8UVY"
	untrackedTag = "2PLQRV"
)

// sealedKey is a key as api_keys holds it (its lookup digest and its
// nonce-prefixed AES-GCM ciphertext), with the plaintext its owner was
// given.
type sealedKey struct {
	raw            string
	digest, sealed []byte
}

// fixtureKeys are the keys of the fixture, one per state a key can be
// left in.
type fixtureKeys struct {
	replaced, active, disabled, blacklisted, revoked sealedKey
}

// sealFixtureKeys makes the fixture's keys under upgradeSecret with
// today's keys package: the releases of schemas 5 and 15 digested and
// sealed keys as it does (HMAC-SHA256 and AES-256-GCM under the same
// sub-keys, the nonce before the ciphertext, the digest as additional
// data), so the rows it writes on a scratch database are the rows they
// wrote.
func sealFixtureKeys(t *testing.T) fixtureKeys {
	t.Helper()
	ctx := context.Background()
	scratch := storetest.Open(t, store.DialectSQLite)
	service, err := keys.NewService(scratch, keys.Config{Secret: upgradeSecret})
	if err != nil {
		t.Fatal(err)
	}
	seal := func(owner string) sealedKey {
		issued, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: owner}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		key := sealedKey{raw: issued.Key}
		row := storetest.SQL(t, scratch).WithContext(ctx).Raw(`SELECT digest, sealed FROM api_keys WHERE id = ?`, issued.KeyID).Row()
		if err := row.Scan(&key.digest, &key.sealed); err != nil {
			t.Fatal(err)
		}
		return key
	}
	return fixtureKeys{replaced: seal("1"), active: seal("2"), disabled: seal("3"), blacklisted: seal("4"), revoked: seal("5")}
}

// oldRelease writes rows as a release of an earlier schema did: plain
// SQL of that schema's columns, on a connection of its own.
type oldRelease struct {
	t    *testing.T
	conn *gorm.DB
}

// exec runs one statement.
func (r oldRelease) exec(sql string, args ...any) {
	r.t.Helper()
	if err := r.conn.Exec(sql, args...).Error; err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
}

// insert runs an INSERT of one row of a table with a generated id and
// checks that the database gave it id, the id the expectations name.
func (r oldRelease) insert(id int64, sql string, args ...any) {
	r.t.Helper()
	var got int64
	if err := r.conn.Raw(sql+` RETURNING id`, args...).Scan(&got).Error; err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	if got != id {
		r.t.Fatalf("%s: row got id %d, the fixture expects %d", sql, got, id)
	}
}

// fillSchema5 writes what a release of schema 5 (2026-11-22) left:
// developers and keys in every state with their events, the log
// channel's position, three clans with their players, 4-hourly and
// weekly snapshots and jobs, tournaments and a periodic task's claim.
func fillSchema5(r oldRelease, k fixtureKeys) {
	r.t.Helper()
	developer := `INSERT INTO developers (discord_user_id, display_name, created_at, updated_at) VALUES (?, ?, ?, ?)`
	r.insert(1, developer, ana, "ana", at("2026-11-01T09:00:00Z"), at("2026-11-03T10:00:00Z"))
	r.insert(2, developer, ben, "ben", at("2026-11-02T12:00:00Z"), at("2026-11-10T08:00:00Z"))
	r.insert(3, developer, zoe, "Zoë", at("2026-11-04T11:00:00Z"), at("2026-11-12T15:00:00Z"))
	r.insert(4, developer, dan, "dan", at("2026-11-05T13:00:00Z"), at("2026-11-15T17:30:00Z"))
	r.insert(5, developer, eve, "eve", at("2026-11-16T09:00:00Z"), at("2026-11-16T09:00:00Z"))
	r.exec(`UPDATE developers SET blacklisted = TRUE, blacklist_reason = ?, blacklisted_by = ?, blacklisted_at = ? WHERE id = ?`,
		"resold keys", moderator, at("2026-11-12T15:00:00Z"), 3)
	r.exec(`UPDATE developers SET blacklisted = TRUE, blacklist_reason = ?, blacklisted_by = ?, blacklisted_at = ? WHERE id = ?`,
		"spam", "cli", at("2026-11-16T09:00:00Z"), 5)

	key := `INSERT INTO api_keys (developer_id, digest, sealed, state, state_reason, created_at, state_changed_at, last_used_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	r.insert(1, key, 1, k.replaced.digest, k.replaced.sealed, "replaced", "regenerated", at("2026-11-01T09:00:00Z"), at("2026-11-03T10:00:00Z"), at("2026-11-02T20:00:00Z"))
	r.insert(2, key, 2, k.disabled.digest, k.disabled.sealed, "disabled", "left the server", at("2026-11-02T12:00:00Z"), at("2026-11-10T08:00:00Z"), nil)
	r.insert(3, key, 1, k.active.digest, k.active.sealed, "active", "", at("2026-11-03T10:00:00Z"), at("2026-11-03T10:00:00Z"), at("2026-11-21T18:00:00Z"))
	r.insert(4, key, 3, k.blacklisted.digest, k.blacklisted.sealed, "blacklisted", "resold keys", at("2026-11-04T11:00:00Z"), at("2026-11-12T15:00:00Z"), nil)
	r.insert(5, key, 4, k.revoked.digest, k.revoked.sealed, "revoked", "published on a forum", at("2026-11-05T13:00:00Z"), at("2026-11-15T17:30:00Z"), nil)

	event := `INSERT INTO key_events (developer_id, discord_user_id, key_id, action, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`
	r.insert(1, event, 1, ana, 1, "issued", "discord:"+ana, "", at("2026-11-01T09:00:00Z"))
	r.insert(2, event, 2, ben, 2, "issued", "discord:"+ben, "", at("2026-11-02T12:00:00Z"))
	r.insert(3, event, 1, ana, 3, "regenerated", "discord:"+ana, "replaces key 1", at("2026-11-03T10:00:00Z"))
	r.insert(4, event, 3, zoe, 4, "issued", "discord:"+zoe, "", at("2026-11-04T11:00:00Z"))
	r.insert(5, event, 4, dan, 5, "issued", "discord:"+dan, "", at("2026-11-05T13:00:00Z"))
	r.insert(6, event, 2, ben, 2, "disabled", "bot", "left the server", at("2026-11-10T08:00:00Z"))
	r.insert(7, event, 3, zoe, 4, "blacklisted", moderator, "resold keys", at("2026-11-12T15:00:00Z"))
	r.insert(8, event, 4, dan, 5, "revoked", "cli", "published on a forum", at("2026-11-15T17:30:00Z"))
	r.insert(9, event, 5, eve, nil, "blacklisted", "cli", "spam", at("2026-11-16T09:00:00Z"))

	r.exec(`INSERT INTO bot_cursors (name, position, updated_at) VALUES ('audit-log', 7, ?)`, at("2026-11-12T15:00:01Z"))

	clan := `INSERT INTO tracked_clans (tag, name, active, weekly, legible, override, tracked_since, tracked_by, tracked_by_key_id, last_checked_at, untracked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	r.insert(1, clan, weeklyClan, "Crown Keepers", true, true, true, false, at("2026-11-06T09:30:00Z"), "key", 3, at("2026-11-20T08:00:04Z"), nil)
	r.insert(2, clan, fourHourly, "Ça Roule", true, false, false, true, at("2026-11-19T16:05:00Z"), "operator", nil, at("2026-11-20T08:00:03Z"), nil)
	r.insert(3, clan, untrackedTag, "Gone Fishing", false, true, true, false, at("2026-11-07T10:00:00Z"), "key", 5, at("2026-11-18T08:00:02Z"), at("2026-11-18T12:00:00Z"))

	player := `INSERT INTO clan_players (tag, name) VALUES (?, ?)`
	r.insert(1, player, "2PY0Q8", "Ïris")
	r.insert(2, player, "2P9CUL", "Bo")
	r.insert(3, player, "2PJRG0", "Kai")
	r.insert(4, player, "2PY0Q8", "Iris II") // player 1 renamed

	// Members in the compact encoding of schema 5 (encoding 1): the
	// version, the count, then per member five zigzag varints: the
	// player's id less the previous member's, the rank less the
	// position, the trophies less the previous member's, the donations
	// and the crowns.
	snapshot := `INSERT INTO clan_snapshots (clan_id, kind, slot, donations, member_count, members) VALUES (?, ?, ?, ?, ?, ?)`
	r.exec(snapshot, 1, 1, at("2026-11-20T00:00:00Z").Unix(), 115, 3, []byte{
		0x01, 0x03,
		0x02, 0x00, 0xd0, 0x5f, 0x50, 0x18, // player 1, rank 1, 6120 trophies, 40 donations, 12 crowns
		0x02, 0x00, 0x97, 0x02, 0x00, 0x00, // player 2, rank 2, 5980 trophies, 0 donations, 0 crowns
		0x02, 0x00, 0x87, 0x09, 0x96, 0x01, 0x06, // player 3, rank 3, 5400 trophies, 75 donations, 3 crowns
	})
	r.exec(snapshot, 1, 1, at("2026-11-20T04:00:00Z").Unix(), 124, 3, []byte{
		0x01, 0x03,
		0x02, 0x00, 0xe6, 0x5f, 0x58, 0x18, // player 1, rank 1, 6131 trophies, 44 donations, 12 crowns
		0x04, 0x00, 0x99, 0x02, 0xa0, 0x01, 0x0a, // player 3, rank 2, 5990 trophies, 80 donations, 5 crowns
		0x01, 0x00, 0x13, 0x00, 0x00, // player 2, rank 3, 5980 trophies, 0 donations, 0 crowns
	})
	r.exec(snapshot, 1, 1, at("2026-11-20T08:00:00Z").Unix(), 141, 2, []byte{
		0x01, 0x02,
		0x08, 0x00, 0xf8, 0x5f, 0x66, 0x28, // player 4, rank 1, 6140 trophies, 51 donations, 20 crowns
		0x01, 0x00, 0xa1, 0x02, 0xb4, 0x01, 0x0e, // player 3, rank 2, 5995 trophies, 90 donations, 7 crowns
	})
	r.exec(snapshot, 1, 2, at("2026-11-09T23:00:00Z").Unix(), 420, 2, []byte{
		0x01, 0x02,
		0x02, 0x00, 0xc4, 0x5e, 0xd8, 0x04, 0xa0, 0x01, // player 1, rank 1, 6050 trophies, 300 donations, 80 crowns
		0x02, 0x00, 0xab, 0x02, 0xf0, 0x01, 0x50, // player 2, rank 2, 5900 trophies, 120 donations, 40 crowns
	})
	r.exec(snapshot, 1, 2, at("2026-11-16T23:00:00Z").Unix(), 660, 3, []byte{
		0x01, 0x03,
		0x02, 0x00, 0xa8, 0x5f, 0xec, 0x04, 0xaa, 0x01, // player 1, rank 1, 6100 trophies, 310 donations, 85 crowns
		0x02, 0x00, 0x97, 0x02, 0xac, 0x02, 0x58, // player 2, rank 2, 5960 trophies, 150 donations, 44 crowns
		0x02, 0x00, 0x87, 0x09, 0x90, 0x03, 0x78, // player 3, rank 3, 5380 trophies, 200 donations, 60 crowns
	})
	r.exec(snapshot, 2, 1, at("2026-11-20T08:00:00Z").Unix(), 2, 1, []byte{
		0x01, 0x01,
		0x04, 0x00, 0xba, 0x5d, 0x04, 0x00, // player 2, rank 1, 5981 trophies, 2 donations, 0 crowns
	})
	r.exec(snapshot, 3, 1, at("2026-11-18T08:00:00Z").Unix(), 10, 1, []byte{
		0x01, 0x01,
		0x04, 0x00, 0xfc, 0x5c, 0x14, 0x02, // player 2, rank 1, 5950 trophies, 10 donations, 1 crown
	})

	// Times of jobs are Unix milliseconds.
	r.exec(`INSERT INTO snapshot_jobs (clan_id, kind, slot, state, attempts, due_at, deadline_at, lease_owner, last_error, finished_at)
		VALUES (1, 1, ?, 'done', 1, ?, ?, 'replica-a', '', ?)`, at("2026-11-20T08:00:00Z").Unix(),
		at("2026-11-20T08:00:00Z").UnixMilli(), at("2026-11-20T12:00:00Z").UnixMilli(), at("2026-11-20T08:00:04Z").UnixMilli())
	r.exec(`INSERT INTO snapshot_jobs (clan_id, kind, slot, state, attempts, due_at, deadline_at, last_error)
		VALUES (1, 1, ?, 'pending', 2, ?, ?, 'upstream: 503')`, at("2026-11-20T12:00:00Z").Unix(),
		at("2026-11-20T12:06:00Z").UnixMilli(), at("2026-11-20T16:00:00Z").UnixMilli())

	// Times of tournaments are Unix seconds.
	tournament := `INSERT INTO tournaments (tag, type, status, name, description, capacity, max_capacity, preparation_duration, duration,
			create_time, start_time, end_time, updated_at, looked_up_at, expected_change_at, claimed_by, claimed_until)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	r.exec(tournament, "2PRUVY", "open", "inProgress", "Friday Cup", "no decks over 4 elixir", 37, 50, 3600, 7200,
		at("2026-11-21T10:00:00Z").Unix(), at("2026-11-21T11:00:00Z").Unix(), nil,
		at("2026-11-21T11:30:00Z").Unix(), at("2026-11-21T11:30:00Z").Unix(), at("2026-11-21T13:00:00Z").Unix(), "", nil)
	r.exec(tournament, "2PGGC0", "open", "inPreparation", "Söndagsturnering", "", 3, 1000, 7200, 3600,
		at("2026-11-21T12:00:00Z").Unix(), nil, nil,
		at("2026-11-21T12:10:00Z").Unix(), nil, at("2026-11-21T14:00:00Z").Unix(), "replica-a", at("2026-11-21T12:15:00Z").Unix())
	r.exec(tournament, "2P0LLY", "passwordProtected", "ended", "Clan Night", "members only", 20, 20, 600, 3600,
		at("2026-11-19T20:00:00Z").Unix(), at("2026-11-19T20:10:00Z").Unix(), at("2026-11-19T21:10:00Z").Unix(),
		at("2026-11-19T21:15:00Z").Unix(), at("2026-11-19T21:15:00Z").Unix(), nil, "", nil)

	r.exec(`INSERT INTO periodic_tasks (name, claimed_by, next_run_at) VALUES ('tournament-search', 'replica-a', ?)`, at("2026-11-22T15:00:00Z").Unix())
}

// fillSchema15 writes what a release of schema 15 (2026-11-25) left: the
// rows of schema 5, which it wrote alike, and those of the columns and
// tables since: a snapshot's score, a tournament a client asked for, the
// secret's check value, a game catalog, key usage and the position of the
// leak notices.
func fillSchema15(r oldRelease, k fixtureKeys) {
	r.t.Helper()
	fillSchema5(r, k)
	r.exec(`INSERT INTO clan_snapshots (clan_id, kind, slot, donations, member_count, members, score) VALUES (1, 1, ?, 14, 2, ?, 51234)`,
		at("2026-11-24T12:00:00Z").Unix(), []byte{
			0x01, 0x02,
			0x08, 0x00, 0xf0, 0x60, 0x0a, 0x00, // player 4, rank 1, 6200 trophies, 5 donations, 0 crowns
			0x01, 0x00, 0x8d, 0x03, 0x12, 0x02, // player 3, rank 2, 6001 trophies, 9 donations, 1 crown
		})
	r.exec(`INSERT INTO tournaments (tag, type, status, name, capacity, max_capacity, preparation_duration, duration,
			create_time, updated_at, looked_up_at, expected_change_at, requested_at)
		VALUES ('2PUU99', 'open', 'inPreparation', 'Known Cup', 8, 100, 3600, 3600, ?, ?, ?, ?, ?)`,
		at("2026-11-24T08:30:00Z").Unix(), at("2026-11-24T09:00:00Z").Unix(), at("2026-11-24T09:00:00Z").Unix(),
		at("2026-11-24T09:30:00Z").Unix(), at("2026-11-24T09:00:00Z").Unix())
	r.exec(`INSERT INTO settings (id, secret_check, secret_recorded_at) VALUES (1, ?, ?)`, keys.SecretCheck(upgradeSecret), at("2026-11-24T08:00:00Z"))
	// fetched_at in Unix milliseconds.
	r.exec(`INSERT INTO game_catalogs (kind, body, fetched_at) VALUES ('cards', ?, ?)`, `{"items":[{"id":26000000,"name":"Knight"}]}`, at("2026-11-24T06:00:00Z").UnixMilli())
	usage := `INSERT INTO key_usage (key_id, hour, route, requests, rate_limited, client_errors, server_errors) VALUES (3, ?, ?, ?, ?, ?, ?)`
	r.exec(usage, at("2026-11-23T10:00:00Z").Unix(), "/v1/clans/:tag", 120, 3, 2, 1)
	r.exec(usage, at("2026-11-23T11:00:00Z").Unix(), "/v1/players/:tag/battlelog", 40, 0, 0, 0)
	r.exec(usage, at("2026-11-24T07:00:00Z").Unix(), "/v1/clans/:tag", 5, 0, 0, 0)
	r.exec(`UPDATE bot_cursors SET position = 9, updated_at = ? WHERE name = 'audit-log'`, at("2026-11-16T09:00:01Z"))
	r.exec(`INSERT INTO bot_cursors (name, position, updated_at) VALUES ('leak-notices', 8, ?)`, at("2026-11-15T17:30:01Z"))
}
