package upstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/crownsdev/crowns/upstream/official"
)

// BenchmarkBattleMapping maps a recorded battle log (25 battles in the
// official wire format) to the legacy shape, as a cache miss of
// /player/:tag/battles does after decoding the upstream's answer.
func BenchmarkBattleMapping(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "battlelog.json"))
	if err != nil {
		b.Fatal(err)
	}
	var log []official.Battle
	if err := json.Unmarshal(raw, &log); err != nil {
		b.Fatal(err)
	}
	c, err := New(Config{BaseURL: "http://upstream.invalid/v1", Token: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, battle := range log {
			_ = c.battle(battle)
		}
	}
	b.ReportMetric(float64(len(log)), "battles/op")
}
