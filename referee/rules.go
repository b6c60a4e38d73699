package referee

// Rule is a rule ID from RULES.md (C1..C18 for classic Ligretto).
type Rule string

// The classic rules the referee enforces.
const (
	C1  Rule = "C1"  // decks: 40 cards, 4 colours x 1..10, distinct backs
	C2  Rule = "C2"  // 2..12 players
	C3  Rule = "C3"  // Ligretto stack of 10
	C4  Rule = "C4"  // row: 5 (2 players), 4 (3), 3 (4+)
	C5  Rule = "C5"  // hand: the rest
	C6  Rule = "C6"  // a new pile starts with a 1
	C7  Rule = "C7"  // same colour, exactly one more
	C8  Rule = "C8"  // a pile topped by 10 is closed
	C9  Rule = "C9"  // anyone may play on any pile
	C10 Rule = "C10" // sources: stack top, row, visible hand card
	C11 Rule = "C11" // a row gap is refilled from the stack at once
	C12 Rule = "C12" // an empty hand is recycled
	C13 Rule = "C13" // Ligretto stop ends the round at once
	C14 Rule = "C14" // +1 per centre card, -2 per stack card
	C15 Rule = "C15" // a legal pile topped by n holds n cards
	C16 Rule = "C16" // match to 99 (or an agreed target / rounds)
	C17 Rule = "C17" // deadlock: leader wins, or restart
	C18 Rule = "C18" // advanced: descending, colour-alternating row
)
