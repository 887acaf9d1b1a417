package silence

func Bad() int  { return 1 }
func Good() int { return 2 }

func F() {
	Bad() //cancelcheck:ignore	reporter	tab-separated fields silence too
	Bad() //cancelcheck:ignore other,reporter one directive for two checks
	//cancelcheck:ignore reporter,other nothing below to silence // want `this //cancelcheck:ignore directive silences no reporter finding on this or the next line; remove reporter from it`
	Good()
	Bad() // want `call to Bad`
	//cancelcheck:ignore reporter
	Bad() // want `call to Bad`
}
