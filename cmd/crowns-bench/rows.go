package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/crownsdev/crowns/keys"
)

// sequenceLength is how many draws a row's sequence has; the load goes
// round it, each connection starting at its own part.
const sequenceLength = 1 << 16

// searchNames are the clan-name searches of the bench (words of the
// sandbox's clan names), three results each: small answers.
var searchNames = []string{"royal", "dark", "golden", "silent", "wild", "iron", "crimson", "frozen", "mighty", "brave"}

// Sizes of the key sets of the refused rows.
const (
	unknownKeys   = 1000
	malformedKeys = 100
)

// draw is one request of a row's sequence: the path and query, and the
// key sent with it.
type draw struct {
	uri string
	key string
}

// seeded is what the seeding left for the load: the developer keys, the
// tracked clans and the players asked for battles.
type seeded struct {
	keys    []string
	tags    []string
	players []string
}

// drawSequence draws sequenceLength requests: each a URI of uris and a
// key of keyring, both by Zipf's law (s = 1) over their order, from a
// fixed seed, so every run and both servers get the same sequence.
func drawSequence(seed uint64, uris, keyring []string) []draw {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	pickURI, pickKey := newZipf(rng, len(uris)), newZipf(rng, len(keyring))
	out := make([]draw, sequenceLength)
	for i := range out {
		out[i] = draw{uri: uris[pickURI.next()], key: keyring[pickKey.next()]}
	}
	return out
}

// rows are the bench's rows: clan search, player battles and history,
// each with a gzip and an identity client, then history requests with
// unknown and with malformed keys.
func (b *hotBench) rows(s seeded) ([]rowSpec, error) {
	var search, battles, history []string
	for _, name := range searchNames {
		search = append(search, "/clan/search?name="+name+"&limit=3")
	}
	for _, player := range s.players {
		battles = append(battles, "/player/"+player+"/battles")
	}
	for _, tag := range s.tags {
		history = append(history, fmt.Sprintf("/clan/%s/history?days=%d", tag, historyDays))
	}
	var rows []rowSpec
	for i, route := range []struct {
		name string
		uris []string
	}{
		{"clan search", search},
		{"player battles", battles},
		{"history (days=7)", history},
	} {
		sequence := drawSequence(uint64(i+1), route.uris, s.keys)
		for _, gzip := range []bool{true, false} {
			rows = append(rows, rowSpec{name: route.name, gzip: gzip, want: http.StatusOK, draws: sequence})
		}
	}
	unknown, malformed, err := refusedKeys()
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		rowSpec{name: "401, unknown key", gzip: true, want: http.StatusUnauthorized, draws: drawSequence(10, history, unknown)},
		rowSpec{name: "401, malformed key", gzip: true, want: http.StatusUnauthorized, draws: drawSequence(11, history, malformed)},
	)
	return rows, nil
}

// refusedKeys are well-formed keys no database knows, and malformed keys
// (a wrong checksum).
func refusedKeys() (unknown, malformed []string, err error) {
	for i := range unknownKeys {
		key, err := keys.NewKey()
		if err != nil {
			return nil, nil, err
		}
		unknown = append(unknown, key)
		if i < malformedKeys {
			last := "A"
			if strings.HasSuffix(key, last) {
				last = "B"
			}
			malformed = append(malformed, key[:len(key)-1]+last)
		}
	}
	return unknown, malformed, nil
}
