package bot

import "reflect"

// RateLimitBuckets is how many rate-limit buckets the session's limiter
// keeps (discordgo never lets one go), for the test that interactions
// leave none behind.
func (b *Bot) RateLimitBuckets() int {
	return reflect.ValueOf(b.session.Ratelimiter).Elem().FieldByName("buckets").Len()
}
