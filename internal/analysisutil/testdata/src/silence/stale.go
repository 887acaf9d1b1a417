//cancelcheck:file-ignore reporter nothing in this file to silence // want `this //cancelcheck:file-ignore directive silences no reporter finding in this file; remove it`

package silence

func H() { Good() }
