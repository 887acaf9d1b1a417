module go122

go 1.22
