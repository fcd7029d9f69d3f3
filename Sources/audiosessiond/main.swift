print("audiosessiond")
