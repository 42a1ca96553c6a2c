package store_test

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/crownsdev/crowns/models/store"
)

func TestMemberStatsRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		members []store.MemberStats
		maxSize int
	}{
		{"empty clan", []store.MemberStats{}, 2},
		{"one member", []store.MemberStats{{PlayerID: 7, ClanRank: 1, Trophies: 4610, Donations: 58, Crowns: 0}}, 10},
		{"typical ranks", []store.MemberStats{
			{PlayerID: 100, ClanRank: 1, Trophies: 4610, Donations: 58},
			{PlayerID: 98, ClanRank: 2, Trophies: 4443, Donations: 76},
			{PlayerID: 131, ClanRank: 3, Trophies: 4442, Donations: 86, Crowns: 43},
		}, 25},
		{"extremes", []store.MemberStats{
			{PlayerID: math.MaxInt64, ClanRank: math.MinInt, Trophies: math.MaxInt, Donations: math.MinInt, Crowns: math.MaxInt},
			{PlayerID: math.MinInt64, ClanRank: math.MaxInt, Trophies: math.MinInt, Donations: -1, Crowns: -1},
		}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			encoded := store.EncodeMemberStats(tt.members)
			if len(encoded) > tt.maxSize {
				t.Errorf("encoded size %d, want at most %d", len(encoded), tt.maxSize)
			}
			decoded, err := store.DecodeMemberStats(encoded)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(decoded, tt.members) {
				t.Fatalf("round trip = %+v, want %+v", decoded, tt.members)
			}
		})
	}
}

func TestDecodeMemberStatsRejectsCorruptInput(t *testing.T) {
	valid := store.EncodeMemberStats([]store.MemberStats{{PlayerID: 1, ClanRank: 1, Trophies: 5000, Donations: 10, Crowns: 3}})
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"unknown version", append([]byte{9}, valid[1:]...)},
		{"truncated", valid[:len(valid)-1]},
		{"trailing bytes", append(bytes.Clone(valid), 0)},
		{"count beyond the data", []byte{1, 200, 1}},
		{"huge count", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if members, err := store.DecodeMemberStats(tt.data); err == nil {
				t.Fatalf("decoded corrupt input into %+v", members)
			}
		})
	}
}

func FuzzMemberStats(f *testing.F) {
	f.Add(int64(100), 1, 4610, 58, 0, uint8(3))
	f.Add(int64(-5), -1, -4000, 0, 99, uint8(50))
	f.Add(int64(math.MaxInt64), math.MinInt, math.MaxInt, math.MinInt, math.MaxInt, uint8(1))
	f.Fuzz(func(t *testing.T, id int64, rank, trophies, donations, crowns int, n uint8) {
		members := make([]store.MemberStats, n%64)
		for i := range members {
			step := int64(i)*7919 - 31
			members[i] = store.MemberStats{
				PlayerID:  id + step,
				ClanRank:  rank + i,
				Trophies:  trophies - i*13,
				Donations: donations ^ i,
				Crowns:    crowns + i,
			}
		}
		encoded := store.EncodeMemberStats(members)
		decoded, err := store.DecodeMemberStats(encoded)
		if err != nil {
			t.Fatalf("decode of an encoding: %v", err)
		}
		if !reflect.DeepEqual(decoded, members) {
			t.Fatalf("round trip = %+v, want %+v", decoded, members)
		}
		// Decoding arbitrary bytes must not panic, and whatever decodes
		// must encode back to the same bytes.
		if again, err := store.DecodeMemberStats(encoded[:len(encoded)/2]); err == nil {
			if !bytes.Equal(store.EncodeMemberStats(again), encoded[:len(encoded)/2]) {
				t.Fatalf("a decodable prefix does not re-encode to itself")
			}
		}
	})
}

func FuzzDecodeMemberStats(f *testing.F) {
	f.Add([]byte{1, 0})
	f.Add(store.EncodeMemberStats([]store.MemberStats{{PlayerID: 3, ClanRank: 1, Trophies: 4000, Donations: 5, Crowns: 1}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := store.DecodeMemberStats(data)
		if err != nil {
			return
		}
		if !bytes.Equal(store.EncodeMemberStats(members), data) {
			// Varints have one canonical form when written by Go, but a
			// hand-made input may use a longer one; it must still decode
			// to the same members after a round trip.
			again, err := store.DecodeMemberStats(store.EncodeMemberStats(members))
			if err != nil || !reflect.DeepEqual(again, members) {
				t.Fatalf("re-encoding of decoded input does not round-trip: %v", err)
			}
		}
	})
}
