// AudioSessionControl: the audiosessionctl commands.
