package keys

// Identity is who a verified key belongs to.
type Identity struct {
	KeyID         int64
	DeveloperID   int64
	DiscordUserID string
}
