// Package official holds the JSON shapes of the official game API v1: what the
// upstream client decodes and what the sandbox encodes. Field names and
// optional fields follow the official responses (tags carry their leading
// '#', timestamps look like "20220520T052356.000Z", enum values are spelled
// in camelCase such as "inviteOnly" or "inPreparation").
//
// Optional fields are pointers or carry omitempty, so a decoder can tell a
// missing value from a zero one where that matters (trophy changes, clan
// chest points, challenge win counts).
package official
