#!/bin/sh
# tiktaxx searching a fixed depth whatever the go line says: go ... -> go depth $1
sed -u "s/^go.*/go depth $1/" | exec /work/ext/tiktaxx/bin/tiktaxx
