package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/crownsdev/crowns/models"
)

// defaultPlayerCacheSize bounds the dictionary rows kept in memory: the
// members of about 1,300 clans of 50, some 17 MiB full (about 270 bytes a
// row with 9-character tags and 16-character names). A deployment tracking
// more clans reads the rows it has forgotten again when it needs them:
// one statement for the members of a clan snapshotted or a history
// rendered, instead of memory that grows with the tracked clans.
const defaultPlayerCacheSize = 1 << 16

// dictionaryChunk bounds the values of one IN list or multi-row insert.
const dictionaryChunk = 500

// playerKey is a dictionary entry: a player tag with the name it had.
type playerKey struct {
	Tag  string
	Name string
}

// playerRow is a row of clan_players.
type playerRow struct {
	ID   int64
	Tag  string
	Name string
}

// playerCache keeps clan_players rows both ways, within limit rows: the
// least recently used go first. Rows are immutable (a rename is a new
// row), so a cached row never goes stale; one forgotten is read again on
// demand.
type playerCache struct {
	mu   sync.Mutex
	byID *simplelru.LRU[int64, playerKey]
	// byKey holds the rows of byID by tag and name: a row leaves it when
	// byID lets it go.
	byKey map[playerKey]int64
}

func newPlayerCache(limit int) *playerCache {
	p := &playerCache{byKey: make(map[playerKey]int64)}
	// NewLRU fails only for a limit below 1.
	p.byID, _ = simplelru.NewLRU(max(1, limit), func(_ int64, k playerKey) { delete(p.byKey, k) })
	return p
}

func (p *playerCache) key(id int64) (playerKey, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byID.Get(id)
}

func (p *playerCache) id(k playerKey) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.byKey[k]
	if ok {
		p.byID.Get(id) // the row is in use
	}
	return id, ok
}

func (p *playerCache) add(rows []playerRow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, row := range rows {
		k := playerKey{Tag: row.Tag, Name: row.Name}
		p.byID.Add(row.ID, k)
		p.byKey[k] = row.ID
	}
}

// playerIDs returns the dictionary id of each member's (tag, name),
// creating the rows that do not exist yet. It costs no query when every
// pair is cached.
func (s *Store) playerIDs(ctx context.Context, members []models.HistoryMember) ([]int64, error) {
	ids := make([]int64, len(members))
	var missing []playerKey
	seen := make(map[playerKey]bool)
	for i, m := range members {
		k := playerKey{Tag: m.Tag, Name: m.Name}
		if id, ok := s.players.id(k); ok {
			ids[i] = id
		} else if !seen[k] {
			seen[k] = true
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return ids, nil
	}
	if err := s.loadOrCreatePlayers(ctx, missing); err != nil {
		return nil, err
	}
	for i, m := range members {
		if ids[i] != 0 {
			continue
		}
		id, ok := s.players.id(playerKey{Tag: m.Tag, Name: m.Name})
		if !ok {
			return nil, fmt.Errorf("player %s missing from the dictionary after insert", m.Tag)
		}
		ids[i] = id
	}
	return ids, nil
}

// loadOrCreatePlayers reads the rows of keys into the cache, inserting
// those that do not exist (concurrent inserts of the same pair are
// harmless: the unique (tag, name) constraint keeps one).
func (s *Store) loadOrCreatePlayers(ctx context.Context, keys []playerKey) error {
	for start := 0; start < len(keys); start += dictionaryChunk {
		chunk := keys[start:min(start+dictionaryChunk, len(keys))]
		if err := s.loadPlayers(ctx, chunk); err != nil {
			return err
		}
		var absent []playerKey
		for _, k := range chunk {
			if _, ok := s.players.id(k); !ok {
				absent = append(absent, k)
			}
		}
		if len(absent) == 0 {
			continue
		}
		rows := make([]playerRow, len(absent))
		for i, k := range absent {
			rows[i] = playerRow{Tag: k.Tag, Name: k.Name}
		}
		err := s.session(ctx).Exec(`INSERT INTO clan_players (tag, name) VALUES `+valuesList(len(rows), "(?, ?)")+
			` ON CONFLICT (tag, name) DO NOTHING`, playerArgs(absent)...).Error
		if err != nil {
			return fmt.Errorf("insert players: %w", s.Translate(err))
		}
		if err := s.loadPlayers(ctx, absent); err != nil {
			return err
		}
	}
	return nil
}

// loadPlayers reads the rows of keys that exist into the cache. It asks
// by (tag, name), the columns of the unique index, so that the database
// reads the index even before it has statistics of the table (a table
// filled since the last ANALYZE): by tag alone, PostgreSQL without them
// scanned the whole table, 42 ms at 330,000 rows instead of 1 ms.
func (s *Store) loadPlayers(ctx context.Context, keys []playerKey) error {
	var rows []playerRow
	err := s.session(ctx).Raw(playersByKeySQL(len(keys)), playerArgs(keys)...).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("read players: %w", s.Translate(err))
	}
	s.players.add(rows)
	return nil
}

// playerKeys returns the (tag, name) of each id, reading the ids missing
// from the cache in one query per chunk.
func (s *Store) playerKeys(ctx context.Context, ids []int64) (map[int64]playerKey, error) {
	out := make(map[int64]playerKey, len(ids))
	var missing []int64
	asked := make(map[int64]bool)
	for _, id := range ids {
		if _, done := out[id]; done || asked[id] {
			continue
		}
		if k, ok := s.players.key(id); ok {
			out[id] = k
		} else {
			asked[id] = true
			missing = append(missing, id)
		}
	}
	for start := 0; start < len(missing); start += dictionaryChunk {
		chunk := missing[start:min(start+dictionaryChunk, len(missing))]
		var rows []playerRow
		if err := s.session(ctx).Raw(`SELECT id, tag, name FROM clan_players WHERE id IN ?`, chunk).Scan(&rows).Error; err != nil {
			return nil, fmt.Errorf("read players: %w", s.Translate(err))
		}
		s.players.add(rows)
		for _, row := range rows {
			out[row.ID] = playerKey{Tag: row.Tag, Name: row.Name}
		}
	}
	for _, id := range missing {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("snapshot refers to player id %d, absent from the dictionary", id)
		}
	}
	return out, nil
}

// playersByKeySQL reads the rows of n (tag, name) pairs, given as
// playerArgs.
func playersByKeySQL(n int) string {
	return `SELECT id, tag, name FROM clan_players WHERE (tag, name) IN (` + valuesList(n, "(?, ?)") + `)`
}

func playerArgs(keys []playerKey) []any {
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, k.Tag, k.Name)
	}
	return args
}

// valuesList repeats one row placeholder n times, comma-separated.
func valuesList(n int, row string) string {
	buf := make([]byte, 0, n*(len(row)+2))
	for i := range n {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, row...)
	}
	return string(buf)
}
