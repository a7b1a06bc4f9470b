def check_options(options):
    if options.get("verify") is False:
        raise ValueError("verify=False is not supported; pass a CA bundle instead")
    return options
