//cancelcheck:file-ignore reporter,other a file of calls to Bad on purpose

package silence

func G() {
	Bad()
	Bad()
}
