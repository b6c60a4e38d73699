package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"ligretto/referee/tiles"
	"ligretto/stream"
	"ligretto/table"
	ttable "ligretto/table/tiles"
	"ligretto/table/tilesdemo"
)

// The games serve referees.
const (
	gameClassic = "classic"
	gameTiles   = "tiles"
)

// checkGame reports the flags that do not go with --game: the tile game
// has no calibration file and no card networks (its camera reads the
// board's colours and the cards' frames), and 2 to 4 players.
func (o *serveOptions) checkGame(stderr io.Writer) error {
	switch o.game {
	case gameClassic:
		if o.set["rounds"] {
			fmt.Fprintln(stderr, "ligretto serve: --rounds is for --game tiles (a classic match is played to its target)")
			return errUsage
		}
		return nil
	case gameTiles:
	default:
		fmt.Fprintf(stderr, "ligretto serve: --game %q: want classic or tiles\n", o.game)
		return errUsage
	}
	var classic []string
	for _, f := range []string{"calibration", "weights", "second"} {
		if o.set[f] {
			classic = append(classic, "--"+f)
		}
	}
	switch {
	case len(classic) > 0:
		fmt.Fprintf(stderr, "ligretto serve: %s: classic Ligretto's only; the tile game's camera needs neither a calibration file nor the card networks\n", strings.Join(classic, ", "))
		return errUsage
	case o.players < 2 || o.players > 4:
		fmt.Fprintf(stderr, "ligretto serve: --players %d: the tile game is for 2 to 4 (T1)\n", o.players)
		return errUsage
	case o.rounds < 0:
		fmt.Fprintf(stderr, "ligretto serve: --rounds %d is negative\n", o.rounds)
		return errUsage
	}
	return nil
}

// runServeTiles is `serve --game tiles`: the tile game (rulebook 002) on
// a camera, a video, a folder, a phone or the demo (simulated matches
// rendered live), read by table/tiles' loop and decided by the tile
// referee, streamed as the classic game is. The players are the
// simulator's for --players: P1.. with the frames plain, double, dashed,
// dotted in seat order.
func runServeTiles(o serveOptions, log *slog.Logger, stdout, stderr io.Writer) error {
	var refOpts []tiles.Option
	lf, err := createLog(o.logPath)
	if err != nil {
		return err
	}
	if lf != nil {
		defer lf.Close()
		refOpts = append(refOpts, tiles.WithLog(lf))
	}
	token, err := operatorToken(o.tokenFile, stdout)
	if err != nil {
		return err
	}
	ctx, cancel := serveContext()
	defer cancel()

	players := tiles.DefaultPlayers(o.players)
	game := stream.NewTilesGame(tiles.New(refOpts...), players)
	src, phone, err := openTilesSource(ctx, o, log)
	if err != nil {
		return err
	}
	defer src.Close()
	feed := newFrameFeed()
	cfg := o.streamConfig(token, log)
	room, err := o.publish.apply(&cfg, log, stderr)
	if err != nil {
		return err
	}
	loop, err := ttable.New(ttable.Config{Players: players, Settings: tiles.Settings{Rounds: o.rounds}, Annotate: true, OnFrame: feed.offer, Log: log},
		game.Referee())
	if err != nil {
		return err
	}
	defer loop.Close()
	return serveTable(ctx, cancel, o, cfg, room, servedTable{game: game, run: loop.Run, src: src, phone: phone, feed: feed}, log, stdout)
}

// openTilesSource opens the tile table: the tile demo, or what
// openServeSource opens.
func openTilesSource(ctx context.Context, o serveOptions, log *slog.Logger) (table.Source, *table.Phone, error) {
	if o.source != "demo" {
		return openServeSource(ctx, o, log)
	}
	cfg := tilesdemo.DefaultConfig()
	cfg.Players, cfg.Rounds, cfg.Log = o.players, o.rounds, log
	d, err := tilesdemo.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return table.Paced(d, o.speed), nil, nil
}
