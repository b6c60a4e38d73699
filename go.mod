module ligretto

go 1.26
