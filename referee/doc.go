// Package referee decides legality in Ligretto. It is pure Go: it knows
// cards, piles, rounds and matches, and nothing about pixels or tensors.
//
// Two views of a round share the pile rules (pile.go):
//   - Round, the full model, knows every player's stack, row and hand. The
//     simulator plays it; every action is checked against C6-C12 and C18.
//   - Referee, the observed model, knows only what a camera sees: pile tops,
//     the stop call and the post-stop counts. It is event-sourced: every
//     accepted observation and its verdict are appended to a JSON-lines log,
//     and Replay rebuilds the state from that log.
//
// Rule IDs (C1..C18) follow ../shared/RULES.md; every Violation names one.
package referee
