// Package keys owns the lifecycle of Crowns developer keys: their format,
// generation, storage at rest (a keyed lookup digest and an AES-GCM
// ciphertext, never the plaintext), the transitions (issue, remind,
// regenerate, disable, re-enable, revoke, blacklist, unblacklist) recorded
// in key_events in the same transaction, and verification behind a
// bounded in-process cache — kept fresh by reading that outbox, so other
// processes' changes are seen within seconds and a key check costs no
// query in steady state — with batched last-use times and per-hour
// request counts.
//
// The Service is the one entry point: crowns serve builds one, which its
// api and bot share, and the crowns keys command another, each from the
// shared store.Store and the secret from LoadOrCreateSecret.
package keys
