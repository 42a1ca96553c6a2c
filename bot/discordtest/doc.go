// Package discordtest is a fake Discord for offline tests of the key desk:
// an httptest server that answers the REST routes the bot uses (recording
// every request and failing on demand like Discord does), and a gateway
// that says hello, reads the identify and either sends READY or closes with
// a chosen close code.
//
// A real *discordgo.Session reaches it through Client, whose transport
// sends every request to the fake server whatever host discordgo put in
// the URL; discordgo's endpoint variables are never touched.
package discordtest
