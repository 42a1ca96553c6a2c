// Package bot is the Discord key desk of Crowns. In the developer-key
// channel of the community server it hands out developer keys (slash
// command /key and the text command "!key"), always by direct message;
// it disables the keys of members who leave and reconciles the member
// list on every (re)connection; it gives moderators /keyadmin and /clan
// commands; it posts every key transition, from whichever process, to a
// log channel; and it tells the owners of keys revoked by a leaked-key
// report by direct message.
//
// A key's plaintext only ever travels in the direct message to its owner:
// never in a channel message, an embed, a log line or an error.
//
// Every word the bot says is in texts.go.
package bot
