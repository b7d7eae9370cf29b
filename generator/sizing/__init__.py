"""Pure sizing math over catalog records: bytes, setups, speed, commands. No I/O, no text formats."""
