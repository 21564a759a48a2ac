#!/bin/sh
# Placeholder for Prisma's schema engine: `prisma generate` needs a path, never runs it.
echo "The Prisma schema engine is not installed; use npm run db:migrate." >&2
exit 1
