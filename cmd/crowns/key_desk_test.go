package main

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestNewKeyDeskFromTheDiscordSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr bool
	}{
		{name: "token, server and key channel", env: map[string]string{
			"CROWNS_DISCORD_TOKEN": "token", "CROWNS_DISCORD_GUILD_ID": "1", "CROWNS_DISCORD_KEY_CHANNEL_ID": "2",
			"CROWNS_DISCORD_LOG_CHANNEL_ID": "3", "CROWNS_DISCORD_PREFIX": "!crowns",
		}},
		{name: "no token", env: map[string]string{}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(func(name string) string { return tt.env[name] })
			if err != nil {
				t.Fatal(err)
			}
			db := storetest.Open(t, store.DialectSQLite)
			service, err := keys.NewService(db, keys.Config{Secret: bytes.Repeat([]byte{7}, 32)})
			if err != nil {
				t.Fatal(err)
			}
			desk, err := newKeyDesk(cfg, db, service, nil, slog.New(slog.DiscardHandler), models.SystemClock{}, nil)
			if (err != nil) != tt.wantErr || (desk == nil) != tt.wantErr {
				t.Errorf("newKeyDesk = %v, %v; want error %v", desk, err, tt.wantErr)
			}
		})
	}
}
