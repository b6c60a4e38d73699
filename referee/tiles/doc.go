// Package tiles referees the tile-laying Ligretto of rulebook 002 (a game
// by Rudi Biber, distinct from classic Ligretto): two-coloured cards laid on
// a board of coloured square fields, next to four shared Ligretto stones.
// It is pure Go and shares with package referee only the four colours.
//
// Its rules are T1-T6 of ../shared/RULES.md, refined into parts (T2a,
// T2b, ...) listed in rules.go; every Violation names one.
//
// Two views of a round share the board rules (table.go):
//   - Round, the full model, knows every player's hand and discard pile.
//     The simulator (package tiles/sim) plays it.
//   - Referee, the observed model, knows only what a camera above the
//     table sees: cards and jokers appearing on fields, stones moving, the
//     stop, and the cards left after it. It logs every accepted
//     observation with its verdict as JSON lines, and Replay rebuilds it.
package tiles
