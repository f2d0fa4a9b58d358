module restartkit/tools/gen_re2_unicode

go 1.26
