print("scrub")
