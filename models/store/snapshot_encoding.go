package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// memberEncodingV1 is the first byte of a member list in the first
// compact encoding. A later encoding gets a new version byte; readers keep
// decoding the old ones.
const memberEncodingV1 byte = 1

// minEncodedMemberBytes is the smallest encoding of one member: five
// one-byte varints.
const minEncodedMemberBytes = 5

// errCorruptMembers is wrapped by every decoding failure.
var errCorruptMembers = errors.New("corrupt snapshot member list")

// MemberStats is one member of a snapshot as stored: the player's
// dictionary id (see clan_players) and the numbers of that slot.
type MemberStats struct {
	PlayerID  int64
	ClanRank  int
	Trophies  int
	Donations int
	Crowns    int
}

// EncodeMemberStats packs a member list into the compact binary form stored
// in clan_snapshots.members: a version byte, the member count as a uvarint,
// then per member, in the given (rank) order, five zigzag varints: the
// player id as a delta from the previous member's, the clan rank as a
// delta from its position (1-based), the trophies as a delta from the
// previous member's, the donations and the crowns. In rank order these
// deltas are small, so a member usually takes 6 to 8 bytes instead of the
// ~100 of a JSON object with repeated key names.
func EncodeMemberStats(members []MemberStats) []byte {
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(members)*8)
	out = append(out, memberEncodingV1)
	out = binary.AppendUvarint(out, uint64(len(members)))
	var prevID, prevTrophies int64
	for i, m := range members {
		out = binary.AppendVarint(out, m.PlayerID-prevID)
		out = binary.AppendVarint(out, int64(m.ClanRank)-int64(i+1))
		out = binary.AppendVarint(out, int64(m.Trophies)-prevTrophies)
		out = binary.AppendVarint(out, int64(m.Donations))
		out = binary.AppendVarint(out, int64(m.Crowns))
		prevID, prevTrophies = m.PlayerID, int64(m.Trophies)
	}
	return out
}

// DecodeMemberStats unpacks what EncodeMemberStats packed. It never panics
// on malformed input and rejects trailing bytes, unknown versions and
// counts the data cannot hold.
func DecodeMemberStats(data []byte) ([]MemberStats, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty", errCorruptMembers)
	}
	if data[0] != memberEncodingV1 {
		return nil, fmt.Errorf("%w: unknown encoding version %d", errCorruptMembers, data[0])
	}
	r := varintReader{data: data[1:]}
	count := r.uvarint()
	if r.err != nil || count > uint64(len(r.data)/minEncodedMemberBytes) {
		return nil, fmt.Errorf("%w: bad member count", errCorruptMembers)
	}
	members := make([]MemberStats, count)
	var prevID, prevTrophies int64
	for i := range members {
		id := prevID + r.varint()
		rank := int64(i+1) + r.varint()
		trophies := prevTrophies + r.varint()
		members[i] = MemberStats{
			PlayerID:  id,
			ClanRank:  int(rank),
			Trophies:  int(trophies),
			Donations: int(r.varint()),
			Crowns:    int(r.varint()),
		}
		prevID, prevTrophies = id, trophies
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: truncated member %w", errCorruptMembers, r.err)
	}
	if len(r.data) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errCorruptMembers, len(r.data))
	}
	return members, nil
}

// varintReader reads varints from a byte slice and remembers the first
// failure, so a decoder can check once at the end.
type varintReader struct {
	data []byte
	err  error
}

func (r *varintReader) varint() int64 { return readNext(r, binary.Varint) }

func (r *varintReader) uvarint() uint64 { return readNext(r, binary.Uvarint) }

// readNext decodes the next value with decode (binary.Varint or
// binary.Uvarint), or records the failure and returns 0.
func readNext[T int64 | uint64](r *varintReader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.data)
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.data = r.data[n:]
	return v
}
