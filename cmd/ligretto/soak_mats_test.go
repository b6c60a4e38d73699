//go:build soak && matprofile

package main

import "gocv.io/x/gocv"

// matsCounted: built with matprofile, gocv counts the Mats alive.
const matsCounted = true

func matCount() int { return gocv.MatProfile.Count() }
