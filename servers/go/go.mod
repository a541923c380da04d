module benchbook/servers

go 1.26
