package helper

// Jar is the helper's assembled jar. PLACEHOLDER until the phone side's
// jar.go (which embeds helper.jar) lands: this file is then deleted.
var Jar = []byte("adbc-helper placeholder: not a jar\n")
