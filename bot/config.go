package bot

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
)

// Config says where the key desk works and how it behaves.
type Config struct {
	// Token is the bot token from the Discord developer portal, without
	// the "Bot " prefix.
	Token string
	// GuildID is the community server; KeyChannelID its developer-key
	// channel; LogChannelID, when set, receives every key transition.
	GuildID      string
	KeyChannelID string
	LogChannelID string
	// Prefix starts text commands, like "!key get" (default "!key").
	Prefix string
	// Clock tells the time (nil: the system clock); Logger receives the
	// bot's logs (nil: discarded).
	Clock  models.Clock
	Logger *slog.Logger
	// HTTPClient carries the session's REST requests; nil keeps
	// discordgo's client. Tests point it at a fake Discord.
	HTTPClient *http.Client
	// HandlerTimeout bounds the work of one command or member event
	// (default 15s); shutdown waits for handlers in flight.
	HandlerTimeout time.Duration
	// DirectMessageTimeout bounds sending one key by direct message
	// (opening the channel and posting), inside the handler's budget, so
	// a direct message Discord keeps rate-limiting (discordgo waits and
	// retries a 429 until the request's deadline, and gives up at once on
	// a wait past it: see rateLimitTransport) gives up in time to answer
	// the member (default 5s).
	DirectMessageTimeout time.Duration
	// AnswerTimeout bounds the answer to a command: the slash-command
	// answer, or the channel reply to a text command and deleting the
	// command message. It starts when the answer is sent and does not
	// share the handler's deadline, so a member whose command used up
	// HandlerTimeout still hears back; a handler therefore lasts at most
	// HandlerTimeout plus AnswerTimeout (default 5s).
	AnswerTimeout time.Duration
	// RequestTimeout bounds each request the bot makes to Discord of its
	// own accord, outside a command: a post to the log channel (a key
	// event or a usage alert), one page of the member list, registering
	// the slash commands, checking the token; and a request discordgo
	// makes without a context (its look-up of the gateway's address).
	// discordgo sleeps out a 429's wait deaf to the request's context: a
	// wait past this bound fails the request at once instead (see
	// rateLimitTransport), and the audit loop, the usage alerts and the
	// reconciliation try again later; a shorter one holds shutdown at most
	// this long (default 10s).
	RequestTimeout time.Duration
	// AuditPollInterval is how often the key-event outbox is read for
	// the log channel (default 5s).
	AuditPollInterval time.Duration
	// ReconnectDelay is the first wait after the gateway could not be
	// reached; it doubles up to 5 minutes (default 5s).
	ReconnectDelay time.Duration
	// Metrics, when set, is where the bot's metrics are registered
	// (crowns_bot_commands_total, crowns_bot_direct_message_failures_total,
	// crowns_bot_acknowledgement_failures_total);
	// nil records none.
	Metrics prometheus.Registerer
	// CommandCoolDown is how long a member waits between two uses of
	// /key get, /key regenerate and /key revoke (or their text forms), any
	// of the three after any, on Clock, so no one floods the log channel;
	// and between two uses of /key stats (default 30s; negative: no
	// cool-down). Confirming a pending request is not a new use.
	CommandCoolDown time.Duration
	// RateLimitPerSecond is the API's rate limit of one key
	// (CROWNS_RATE_LIMIT_PER_SECOND), by which a usage alert tells a key
	// held at its limit for long from one refused for a burst (see
	// alertHeldFor). Required with a LogChannelID.
	RateLimitPerSecond float64
}

// MaxPrefixLength bounds the text commands' prefix, in characters: the
// help and the key's message repeat it, and must stay within Discord's
// 2000 characters.
const MaxPrefixLength = 32

// CheckPrefix reports whether prefix can begin the text commands: at most
// MaxPrefixLength characters, and no backtick, since the bot's answers
// quote its commands as inline code, which a backtick would end early.
func CheckPrefix(prefix string) error {
	if utf8.RuneCountInString(prefix) > MaxPrefixLength {
		return fmt.Errorf("must be at most %d characters", MaxPrefixLength)
	}
	if strings.Contains(prefix, "`") {
		return errors.New("must not hold a backtick (`): the bot's answers quote commands as inline code")
	}
	return nil
}

// Defaults of Config.
const (
	DefaultPrefix            = "!key"
	defaultHandlerTimeout    = 15 * time.Second
	defaultDMTimeout         = 5 * time.Second
	defaultAnswerTimeout     = 5 * time.Second
	defaultRequestTimeout    = 10 * time.Second
	defaultAuditPollInterval = 5 * time.Second
	defaultReconnectDelay    = 5 * time.Second
	defaultCommandCoolDown   = 30 * time.Second
	maxRetryDelay            = 5 * time.Minute
)

// withDefaults fills unset fields and reports what is missing.
func (c Config) withDefaults() (Config, error) {
	var problems []string
	if strings.TrimSpace(c.Token) == "" {
		problems = append(problems, "bot: Token is required")
	}
	if c.GuildID == "" {
		problems = append(problems, "bot: GuildID is required")
	}
	if c.KeyChannelID == "" {
		problems = append(problems, "bot: KeyChannelID is required")
	}
	if c.LogChannelID != "" && !(c.RateLimitPerSecond > 0) {
		problems = append(problems, "bot: RateLimitPerSecond must be greater than 0 with a LogChannelID (usage alerts)")
	}
	if err := CheckPrefix(c.Prefix); err != nil {
		problems = append(problems, "bot: Prefix "+err.Error())
	}
	if min(c.HandlerTimeout, c.DirectMessageTimeout, c.AnswerTimeout, c.RequestTimeout, c.AuditPollInterval, c.ReconnectDelay) < 0 {
		problems = append(problems, "bot: timeouts and intervals must not be negative")
	}
	if len(problems) > 0 {
		return c, errors.New(strings.Join(problems, "; "))
	}
	c.Token = strings.TrimPrefix(strings.TrimSpace(c.Token), "Bot ")
	c.Prefix = cmp.Or(strings.TrimSpace(c.Prefix), DefaultPrefix)
	c.Clock = cmp.Or[models.Clock](c.Clock, models.SystemClock{})
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	c.HandlerTimeout = cmp.Or(c.HandlerTimeout, defaultHandlerTimeout)
	c.DirectMessageTimeout = cmp.Or(c.DirectMessageTimeout, defaultDMTimeout)
	c.AnswerTimeout = cmp.Or(c.AnswerTimeout, defaultAnswerTimeout)
	c.RequestTimeout = cmp.Or(c.RequestTimeout, defaultRequestTimeout)
	c.AuditPollInterval = cmp.Or(c.AuditPollInterval, defaultAuditPollInterval)
	c.ReconnectDelay = cmp.Or(c.ReconnectDelay, defaultReconnectDelay)
	c.CommandCoolDown = cmp.Or(c.CommandCoolDown, defaultCommandCoolDown)
	return c, nil
}
