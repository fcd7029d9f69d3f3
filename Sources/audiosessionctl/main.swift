import AudioSessionControl

await AudioSessionCtl.runFromCommandLine()
