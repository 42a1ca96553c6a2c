package official

// List is the official envelope of every list: the items and, for paged
// lists, the paging cursors.
type List[T any] struct {
	Items  []T     `json:"items"`
	Paging *Paging `json:"paging,omitempty"`
}

// Paging carries the cursors of a paged list.
type Paging struct {
	Cursors Cursors `json:"cursors"`
}

// Cursors are opaque markers of the neighbouring pages; empty when there is
// no page that way.
type Cursors struct {
	After  string `json:"after,omitempty"`
	Before string `json:"before,omitempty"`
}

// ClientError is the official error body, e.g.
// {"reason":"notFound","message":"..."}.
type ClientError struct {
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	Type    string `json:"type,omitempty"`
}

// Reasons of official error bodies.
const (
	ReasonBadRequest   = "badRequest"
	ReasonAccessDenied = "accessDenied"
	ReasonNotFound     = "notFound"
	ReasonThrottled    = "requestThrottled"
	ReasonUnknown      = "unknownException"
	ReasonMaintenance  = "inMaintenance"
)
