// An empty stand-in for github.com/stretchr/testify, which redigo's go.mod lists (for its tests)
// but no generator needs. It only completes the module graph for the offline build.
module github.com/stretchr/testify
