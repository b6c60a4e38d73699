package training

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"ligretto/model"
)

// DeckSlotOfZero is the number slot a photo card numbered 0 (UNO's 0,
// PhotoCrop.Number -1) takes in a deck's prototypes: Ligretto has 10 where
// UNO has 0, so a 0 stands in for the 10 the photos lack.
const DeckSlotOfZero = 10

// DeckShotReport is one draw of shots from labelled photo crops: the
// network alone and the network adapted to the shots (model.DeckReader),
// each scored on the crops that were not shots.
type DeckShotReport struct {
	Shots        int `json:"shots"`         // per card
	Cards        int `json:"cards"`         // cards with crops left to score
	Crops        int `json:"crops"`         // crops scored (colour)
	Numbered     int `json:"numbered"`      // of them, numbered 1-9
	BeforeColour int `json:"before_colour"` // right, network alone
	BeforeNumber int `json:"before_number"` // right of Numbered
	AfterColour  int `json:"after_colour"`
	AfterNumber  int `json:"after_number"`  // right of Numbered
	AfterNumber0 int `json:"after_number0"` // right of Crops, 0-9 (0 as DeckSlotOfZero)
	// Sure misreads: a wrong colour or number read at least model.SureAt
	// sure (face confidence); before on crops numbered 1-9 (the network
	// has no 0), after on every crop scored.
	BeforeSure, AfterSure int
}

// photoSlot is the deck number of a photo crop: its number, or
// DeckSlotOfZero for a 0.
func photoSlot(ph PhotoCrop) int {
	if ph.Number < 1 {
		return DeckSlotOfZero
	}
	return ph.Number
}

// DrawShots splits photo crops of one deck into shots and crops to score:
// of each card (colour and number) with more than k crops, k drawn at
// random (seed) are shots and the rest are scored; a card with k crops or
// fewer gives them all as shots, as a user shows every card, and none is
// scored.
func DrawShots(photos []PhotoCrop, k int, seed uint64) (shots, scored []int) {
	byCard := map[[2]int][]int{}
	var keys [][2]int
	for i, ph := range photos {
		key := [2]int{ph.Colour, photoSlot(ph)}
		if _, ok := byCard[key]; !ok {
			keys = append(keys, key)
		}
		byCard[key] = append(byCard[key], i)
	}
	sort.Slice(keys, func(a, b int) bool {
		return keys[a][0] < keys[b][0] || keys[a][0] == keys[b][0] && keys[a][1] < keys[b][1]
	})
	rng := rand.New(rand.NewPCG(seed, 0x5eed_dec))
	for _, key := range keys {
		idx := append([]int(nil), byCard[key]...)
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		if len(idx) <= k {
			shots = append(shots, idx...)
			continue
		}
		shots = append(shots, idx[:k]...)
		scored = append(scored, idx[k:]...)
	}
	return shots, scored
}

// EvaluateDeckShots draws k shots a card (DrawShots, seed), learns the
// deck from them at layer l of f (each crop read as it is: a corner
// index) and scores p alone and p adapted on the other crops. tune, when
// not nil, sets the prototypes' Scale and Floor before use.
func EvaluateDeckShots(p model.Predictor, f *model.Fast, photos []PhotoCrop, k int, seed uint64, l model.FeatureLayer, tune func(*model.DeckPrototypes)) (DeckShotReport, error) {
	cfg := p.Config()
	rep := DeckShotReport{Shots: k}
	crops := make([]model.Crop, len(photos))
	for i, ph := range photos {
		c, err := model.CropFromImage(ph.Image, cfg.Width, cfg.Height)
		if err != nil {
			return rep, err
		}
		crops[i] = c
	}
	shotIdx, scoredIdx := DrawShots(photos, k, seed)
	if len(scoredIdx) == 0 {
		return rep, fmt.Errorf("%w: no card has more than %d crops", ErrNoData, k)
	}
	shots := make([]model.DeckShot, len(shotIdx))
	for i, j := range shotIdx {
		shots[i] = model.DeckShot{Crop: crops[j], Colour: photos[j].Colour, Number: photoSlot(photos[j])}
	}
	deck, err := model.LearnDeck(f, shots, l, false)
	if err != nil {
		return rep, err
	}
	if tune != nil {
		tune(&deck)
	}
	reader, err := model.NewDeckReader(p, f, deck)
	if err != nil {
		return rep, err
	}
	scored := make([]model.Crop, len(scoredIdx))
	for i, j := range scoredIdx {
		scored[i] = crops[j]
	}
	before, err := p.ClassifyAsIs(scored)
	if err != nil {
		return rep, err
	}
	after, err := reader.ClassifyAsIs(scored)
	if err != nil {
		return rep, err
	}
	cards := map[[2]int]bool{}
	for i, j := range scoredIdx {
		ph := photos[j]
		cards[[2]int{ph.Colour, photoSlot(ph)}] = true
		rep.Crops++
		b, a := before[i], after[i]
		bColour, aColour := b.Colour == ph.Colour, a.Colour == ph.Colour
		aNumber := a.Number == photoSlot(ph)
		rep.BeforeColour += btoi(bColour)
		rep.AfterColour += btoi(aColour)
		rep.AfterNumber0 += btoi(aNumber)
		if !(aColour && aNumber) && a.FaceConfidence() >= model.SureAt {
			rep.AfterSure++
		}
		if ph.Number >= 1 {
			rep.Numbered++
			bNumber := b.Number == ph.Number
			rep.BeforeNumber += btoi(bNumber)
			rep.AfterNumber += btoi(aNumber)
			if !(bColour && bNumber) && b.FaceConfidence() >= model.SureAt {
				rep.BeforeSure++
			}
		}
	}
	rep.Cards = len(cards)
	return rep, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
