// Package discordtest is a fake Discord for offline tests of the key desk:
// an httptest server that answers the REST routes the bot uses (recording
// every request and failing on demand like Discord does), and a gateway
// that says hello, reads the identify and either sends READY or closes with
// a chosen close code. Like Discord, it refuses with 400 a request that
// breaks one of Discord's rules (see Check: a message over 2000
// characters, an embed over its sizes, a button's or a form's text too
// long, a command name not in lower case, a route Discord does not
// have...), and fails the test that sent it; so does an edit of an
// interaction's original response before its initial response.
//
// A real *discordgo.Session reaches it through Client, whose transport
// sends every request to the fake server whatever host discordgo put in
// the URL; discordgo's endpoint variables are never touched.
package discordtest
