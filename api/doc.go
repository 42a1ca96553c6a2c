// Package api is the public HTTP JSON API of Crowns, built on Fiber v2: the
// routes of the contract (clan search, clan history, tracking, tournaments,
// player battles, key usage, leaked-key reports, health, the OpenAPI
// document), the middleware in front of them (request ids and
// access logs, method filtering, developer-key authentication, per-key rate
// limiting, ETags) and the response cache: upstream-backed answers for a
// TTL, history answers until their clan changes, both rendered once
// (large ones kept gzip only) within one byte budget.
//
// Errors are values: handlers return models sentinels (or errors wrapping
// them) and errors.go maps them to statuses and the contract's JSON error
// body in one table.
package api
