"""The workspace store: saved sets, their streams and files, checksummed statistics, owners, models,
cached neural scores and job rows. It scores nothing."""
