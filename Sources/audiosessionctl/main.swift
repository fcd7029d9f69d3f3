print("audiosessionctl")
