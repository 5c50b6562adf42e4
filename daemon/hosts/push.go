package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/trailboss/trailboss/daemon/wire"
)

// A host pushes its whole queue after every change (wire.QueueUpdate): with 200 items
// there, one event costs the hub 200 items to decode and finish (the attach command
// of each), of which 199 are the same as in the last push. Here each item is decoded once:
// an item whose JSON is the same as in the last push, but for its position (which moves
// when an item ahead leaves, and which the hub's merge renumbers anyway), is the item the
// hub made of it then. The stream stays what it is, so that hubs and hosts of any version
// still read each other.

// pushedUpdate is a wire.QueueUpdate with its items left as the host wrote them.
type pushedUpdate struct {
	ServerTime time.Time         `json:"server_time"`
	Beat       bool              `json:"beat,omitempty"`
	Items      []json.RawMessage `json:"items,omitempty"`
}

// itemDecoder turns one connection's pushed items into the hub's, remembering those of
// the last push.
type itemDecoder struct {
	finish  func(wire.Item) wire.Item // what the hub makes of a host's item (Conn.finish)
	known   map[string]knownItem      // the last push's items, by their JSON without position
	decoded int                       // how many items were decoded from JSON, for the tests
}

type knownItem struct {
	key  string // the map's key, kept for the next push's map without a copy
	item wire.Item
}

func newItemDecoder(finish func(wire.Item) wire.Item) *itemDecoder {
	return &itemDecoder{finish: finish, known: map[string]knownItem{}}
}

// decode returns the hub's items for raws, one push's items in the host's order.
func (d *itemDecoder) decode(raws []json.RawMessage) ([]wire.Item, error) {
	out := make([]wire.Item, len(raws))
	next := make(map[string]knownItem, len(raws))
	for i, raw := range raws {
		key, pos, ok := withoutPosition(raw)
		if k, seen := d.known[string(key)]; ok && seen {
			k.item.Position = pos
			out[i], next[k.key] = k.item, k
			continue
		}
		var it wire.Item
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, fmt.Errorf("read the host's item %d: %w", i+1, err)
		}
		d.decoded++
		out[i] = d.finish(it)
		if ok {
			k := knownItem{key: string(key), item: out[i]}
			next[k.key] = k
		}
	}
	d.known = next
	return out, nil
}

// positionPrefix is how the host's encoder starts an item: Position is wire.Item's first
// field.
var positionPrefix = []byte(`{"position":`)

// withoutPosition returns raw without its leading "position" member, and that position;
// ok is false when raw does not start so (a host whose items are laid out otherwise is
// decoded in full, every push).
func withoutPosition(raw []byte) (key []byte, pos int, ok bool) {
	rest, found := bytes.CutPrefix(raw, positionPrefix)
	if !found {
		return nil, 0, false
	}
	n, rest, found := bytes.Cut(rest, []byte{','})
	if !found {
		return nil, 0, false
	}
	pos, err := strconv.Atoi(string(n))
	if err != nil {
		return nil, 0, false
	}
	return rest, pos, true
}
