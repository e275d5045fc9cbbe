print("bare server: filled in by the replay-server issue")
