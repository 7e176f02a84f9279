// placeholder
function main() {}
