package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// intents are the gateway events the bot asks for: the server itself,
// members joining and leaving (privileged), messages and their content
// (privileged) for the text command.
const intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMembers |
	discordgo.IntentsGuildMessages | discordgo.IntentsMessageContent

// Bot is the Discord key desk: one gateway session to the community server.
type Bot struct {
	cfg     Config
	deps    Dependencies
	log     *slog.Logger
	clock   models.Clock
	session *discordgo.Session

	// pending are the requests to regenerate or revoke a key waiting for
	// their confirmation; coolDowns the members' latest uses of the
	// developer commands.
	pending   *pendingKeyChanges
	coolDowns *coolDowns
	// auditNudge wakes the audit loop when this process commits a key
	// transition, so the log channel hears of it without waiting a poll.
	auditNudge chan struct{}
	// disconnected hears that the gateway connection was lost (or
	// closed), so that Run connects again.
	disconnected chan struct{}
	// reconciling lets one reconciliation run at a time; reconcileOwed
	// wakes the loop that reconciles again after a departure or a
	// reconciliation failed (see reconcileLoop).
	reconciling   sync.Mutex
	reconcileOwed chan struct{}
	inFlight      inFlight
	started       atomic.Bool
	// metrics counts commands and direct-message failures; nil without
	// Config.Metrics.
	metrics *commandMetrics
}

// New builds the bot and its discordgo session; it does not connect yet.
func New(cfg Config, deps Dependencies) (*Bot, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if deps.Keys == nil || deps.Cursors == nil {
		return nil, errors.New("bot: Keys and Cursors dependencies are required")
	}
	session, err := discordgo.New("Bot " + cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("bot: create discord session: %w", err)
	}
	session.Identify.Intents = intents
	// The bot reads no cached state; tracking every member of a large
	// server would only cost memory.
	session.StateEnabled = false
	// A lost gateway is reconnected by Run, with the house backoff, not by
	// discordgo's own loop (its waits double to ten minutes, unjittered).
	session.ShouldReconnectOnError = false
	// discordgo prints its own errors (a gateway it cannot dial, a missed
	// heartbeat) with the standard library's log, in neither the
	// configured format nor level: a plain line among JSON records. Most
	// are also an error Open returns or a closed connection, which the bot
	// logs itself, so the session prints nothing. Those it only prints (a
	// gateway event or message it cannot decode) are lost with them:
	// routing them to the bot's logger would take discordgo's
	// process-wide Logger variable.
	session.LogLevel = discordgo.LogError - 1
	if cfg.HTTPClient != nil {
		session.Client = cfg.HTTPClient
	}
	session.Client = withRateLimitTransport(session.Client, cfg.RequestTimeout)
	metrics, err := newCommandMetrics(cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("bot: metrics: %w", err)
	}
	return &Bot{
		cfg:           cfg,
		deps:          deps,
		log:           cfg.Logger.With("role", "bot"),
		clock:         cfg.Clock,
		session:       session,
		pending:       newPendingKeyChanges(regenerateConfirmWindow),
		coolDowns:     newCoolDowns(cfg.CommandCoolDown),
		auditNudge:    make(chan struct{}, 1),
		disconnected:  make(chan struct{}, 1),
		reconcileOwed: make(chan struct{}, 1),
		metrics:       metrics,
	}, nil
}

// Run connects to Discord and serves the key desk until ctx ends, then
// closes the gateway and waits for the commands in flight (each bounded
// by HandlerTimeout, plus AnswerTimeout for its answer). When Discord
// refuses the token or the privileged intents, Run logs one instruction
// saying what to fix and returns nil at once: a bot that cannot connect
// must not take the API down with it. An unreachable gateway is retried
// until ctx ends, and a connection lost later is made again, both with
// the house backoff. Run may be called once.
func (b *Bot) Run(ctx context.Context) error {
	if !b.started.CompareAndSwap(false, true) {
		return errors.New("bot: Run called twice")
	}
	defer b.inFlight.closeAndWait()
	if refusal := b.checkToken(ctx); refusal != "" {
		b.log.Error(refusal)
		return nil
	}
	removeHandlers := b.addHandlers(ctx)
	defer removeHandlers()
	if !b.openGateway(ctx) {
		return nil
	}
	unsubscribe := b.deps.Keys.Subscribe(func(keys.Event) { b.nudgeAudit() })
	defer unsubscribe()
	auditDone := make(chan struct{})
	go func() {
		defer close(auditDone)
		b.auditLoop(ctx)
	}()
	alertsDone := make(chan struct{})
	go func() {
		defer close(alertsDone)
		b.alertLoop(ctx)
	}()
	reconcileDone := make(chan struct{})
	go func() {
		defer close(reconcileDone)
		b.reconcileLoop(ctx)
	}()
	b.stayConnected(ctx)
	if err := b.session.Close(); err != nil {
		b.log.Warn("closing the Discord gateway failed", "error", err)
	}
	<-auditDone
	<-alertsDone
	<-reconcileDone
	b.log.Info("disconnected from Discord")
	return nil
}

// addHandlers routes gateway events to the Handle methods and returns the
// function that unregisters them. Commands and member events get a
// context that survives shutdown for at most HandlerTimeout, so a key
// being issued is delivered (a command's answer then has AnswerTimeout
// of its own); READY (reconciliation) ends with ctx.
func (b *Bot) addHandlers(ctx context.Context) func() {
	bounded := func(handle func(context.Context)) {
		b.dispatch(func() {
			handlerCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.HandlerTimeout)
			defer cancel()
			handle(handlerCtx)
		})
	}
	removers := []func(){
		b.session.AddHandler(func(_ *discordgo.Session, _ *discordgo.Disconnect) { b.noteDisconnect() }),
		b.session.AddHandler(func(_ *discordgo.Session, e *discordgo.Ready) {
			b.dispatch(func() { b.HandleReady(ctx, e) })
		}),
		b.session.AddHandler(func(_ *discordgo.Session, e *discordgo.MessageCreate) {
			bounded(func(ctx context.Context) { b.HandleMessageCreate(ctx, e) })
		}),
		b.session.AddHandler(func(_ *discordgo.Session, e *discordgo.InteractionCreate) {
			bounded(func(ctx context.Context) { b.HandleInteractionCreate(ctx, e) })
		}),
		b.session.AddHandler(func(_ *discordgo.Session, e *discordgo.GuildMemberRemove) {
			bounded(func(ctx context.Context) { b.HandleGuildMemberRemove(ctx, e) })
		}),
	}
	return func() {
		for _, remove := range removers {
			remove()
		}
	}
}

// dispatch runs one event handler unless shutdown has begun, counting it
// as in flight and turning a panic into a log line.
func (b *Bot) dispatch(handle func()) {
	if !b.inFlight.begin() {
		return
	}
	defer b.inFlight.end()
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("bot event handler panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	handle()
}

// inFlight counts running event handlers; once closed it admits none.
type inFlight struct {
	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
}

func (f *inFlight) begin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.running.Add(1)
	return true
}

func (f *inFlight) end() { f.running.Done() }

func (f *inFlight) closeAndWait() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.running.Wait()
}
