// Package endtoend holds the tests that run roles together, as crowns
// serve wires them: the real API in front of the scheduler's tracker,
// snapshots and tournament refresher, over a real database and the
// sandbox world. Each role's own tests never run another (roles never
// import each other); what only shows when they work together is tested
// here: a clan tracked through the API gains history as slots pass, a
// history answer follows the snapshots stored behind it, and the
// tournament lists hold what the refresher found.
package endtoend
