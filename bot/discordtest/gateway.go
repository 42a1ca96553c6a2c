package discordtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// GatewayScript says how the fake gateway treats a connection: after the
// hello and the client's identify it either closes with CloseCode, or
// (CloseCode 0) sends READY for the bot user and application, listing
// GuildIDs, then Events in order, and then answers heartbeats until the
// client leaves. The first DropConnections connections are dropped after
// their events instead, without a close frame, as a network failure
// drops them.
type GatewayScript struct {
	CloseCode       int
	ApplicationID   string
	GuildIDs        []string
	Events          []GatewayEvent
	DropConnections int
}

// GatewayEvent is a dispatch the fake gateway sends, such as
// {Type: "GUILD_MEMBER_REMOVE", Data: discordgo.Member{...}}; Data is
// encoded as JSON.
type GatewayEvent struct {
	Type string
	Data any
}

// SetGateway replaces the gateway's script for later connections.
func (s *Server) SetGateway(script GatewayScript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if script.ApplicationID == "" {
		script.ApplicationID = DefaultApplicationID
	}
	s.gateway = script
}

// Identify is what the fake gateway keeps of a client's identify.
type Identify struct {
	Token   string           `json:"token"`
	Intents discordgo.Intent `json:"intents"`
}

// Identifies returns every identify the gateway received.
func (s *Server) Identifies() []Identify {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.identify)
}

// gatewayFrame is a gateway payload.
type gatewayFrame struct {
	Op       int             `json:"op"`
	Data     json.RawMessage `json:"d,omitempty"`
	Sequence int64           `json:"s,omitempty"`
	Type     string          `json:"t,omitempty"`
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveGateway(w http.ResponseWriter, req *http.Request) {
	conn, err := upgrader.Upgrade(w, req, nil)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	s.mu.Lock()
	script := s.gateway
	user := s.botUser
	s.mu.Unlock()

	hello, _ := json.Marshal(map[string]int{"heartbeat_interval": 45000})
	if conn.WriteJSON(gatewayFrame{Op: 10, Data: hello}) != nil {
		return
	}
	var identify struct {
		Op   int      `json:"op"`
		Data Identify `json:"d"`
	}
	if conn.ReadJSON(&identify) != nil {
		return
	}
	s.mu.Lock()
	s.identify = append(s.identify, identify.Data)
	s.mu.Unlock()

	if script.CloseCode != 0 {
		message := websocket.FormatCloseMessage(script.CloseCode, closeReason(script.CloseCode))
		_ = conn.WriteControl(websocket.CloseMessage, message, time.Now().Add(time.Second))
		return
	}
	guilds := make([]*discordgo.Guild, 0, len(script.GuildIDs))
	for _, id := range script.GuildIDs {
		guilds = append(guilds, &discordgo.Guild{ID: id, Unavailable: true})
	}
	ready, _ := json.Marshal(discordgo.Ready{
		Version:     10,
		SessionID:   "fake-session",
		User:        &user,
		Application: &discordgo.Application{ID: script.ApplicationID},
		Guilds:      guilds,
	})
	if conn.WriteJSON(gatewayFrame{Op: 0, Type: "READY", Sequence: 1, Data: ready}) != nil {
		return
	}
	for i, event := range script.Events {
		data, err := json.Marshal(event.Data)
		if err != nil || conn.WriteJSON(gatewayFrame{Op: 0, Type: event.Type, Sequence: int64(i + 2), Data: data}) != nil {
			return
		}
	}
	s.mu.Lock()
	drop := s.dropped < script.DropConnections
	if drop {
		s.dropped++
	}
	s.mu.Unlock()
	if drop {
		return // the deferred Close drops the connection
	}
	for {
		var frame gatewayFrame
		if conn.ReadJSON(&frame) != nil {
			return
		}
		if frame.Op == 1 {
			_ = conn.WriteJSON(gatewayFrame{Op: 11})
		}
	}
}

// closeReason words the close codes the way Discord does.
func closeReason(code int) string {
	switch code {
	case 4004:
		return "Authentication failed."
	case 4014:
		return "Disallowed intent(s)."
	}
	return "Closed by the fake gateway."
}
