package store

// developerKeysSchema creates developers, their API keys and the key-event
// audit trail.
//
// api_keys keeps no plaintext: digest is an HMAC-SHA256 of the key (the
// lookup), sealed is nonce||AES-256-GCM ciphertext (for reminders). The
// partial unique index allows one current (active or disabled) key per
// developer, so two concurrent "get" commands cannot both create one.
//
// key_events is the audit trail and the outbox of transitions that another
// process (the bot) posts to a log channel; it repeats the developer's
// Discord user id so a reader needs no join.
func developerKeysSchema(Dialect) []string {
	return []string{
		`CREATE TABLE developers (
			id {{id}},
			discord_user_id TEXT NOT NULL UNIQUE,
			display_name TEXT NOT NULL DEFAULT '',
			blacklisted {{bool}} NOT NULL DEFAULT FALSE,
			blacklist_reason TEXT NOT NULL DEFAULT '',
			blacklisted_by TEXT NOT NULL DEFAULT '',
			blacklisted_at {{time}},
			created_at {{time}} NOT NULL,
			updated_at {{time}} NOT NULL)`,
		`CREATE TABLE api_keys (
			id {{id}},
			developer_id {{bigint}} NOT NULL REFERENCES developers(id),
			digest {{bytes}} NOT NULL UNIQUE,
			sealed {{bytes}} NOT NULL,
			state TEXT NOT NULL,
			state_reason TEXT NOT NULL DEFAULT '',
			created_at {{time}} NOT NULL,
			state_changed_at {{time}} NOT NULL,
			last_used_at {{time}})`,
		`CREATE INDEX api_keys_developer ON api_keys (developer_id)`,
		`CREATE UNIQUE INDEX api_keys_one_current ON api_keys (developer_id) WHERE state IN ('active', 'disabled')`,
		`CREATE TABLE key_events (
			id {{id}},
			developer_id {{bigint}} NOT NULL REFERENCES developers(id),
			discord_user_id TEXT NOT NULL,
			key_id {{bigint}} REFERENCES api_keys(id),
			action TEXT NOT NULL,
			actor TEXT NOT NULL,
			reason TEXT NOT NULL DEFAULT '',
			created_at {{time}} NOT NULL)`,
		`CREATE INDEX key_events_developer ON key_events (developer_id, id)`,
	}
}
