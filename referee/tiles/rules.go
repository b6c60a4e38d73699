package tiles

// Rule is a rule ID: T1..T6 of RULES.md, split into the parts the referee
// tells apart.
type Rule string

// The tile rules the referee enforces.
const (
	T1  Rule = "T1"  // material: 6 board parts (2 players) or 9 (3-4), 15 cards and 2 jokers each, 4 stones
	T2a Rule = "T2a" // a card's two colours are the colours of the two fields it covers
	T2b Rule = "T2b" // a card lies next to a stone: one of its fields shares an edge with the stone's field
	T2c Rule = "T2c" // a card covers only free fields of the board, never a card or joker
	T2d Rule = "T2d" // a card joined to the stone's field by a corner alone does not count as next to it
	T2e Rule = "T2e" // (optional, hint 4) each colour of the card lies on the field of that colour, not swapped
	T3a Rule = "T3a" // the stone moves onto the new card, on the colour farther from its previous place
	T3b Rule = "T3b" // dead end: the next card goes to any free place where it fits, and the blocked stone onto it
	T3c Rule = "T3c" // blocking someone else's stone: the blocker relocates it, as in T3b
	T4a Rule = "T4a" // only the player who laid a joker lays the next card on it
	T4b Rule = "T4b" // ... and at once: their next card goes there
	T4c Rule = "T4c" // a joker goes on a free field next to a stone, and the stone onto it at once
	T5a Rule = "T5a" // "Ligretto Stopp" when every card is laid (jokers need not be); no card after it
	T5b Rule = "T5b" // a player who laid wrongly scores nothing and puts nothing on the board
	T5c Rule = "T5c" // scoring: finisher 2, fewest cards left 1 (ties all), others 0 and 2 cards aside
	T5d Rule = "T5d" // with 2 players only the finisher scores
	T5e Rule = "T5e" // when everyone has cards on their player board, everyone takes 2 back
	T6a Rule = "T6a" // nobody can lay: the round ends, the most cards laid wins it
	T6b Rule = "T6b" // a match lasts a number of rounds agreed before (6 suggested)
)
