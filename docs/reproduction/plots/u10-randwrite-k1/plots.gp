# written by slowpath report; gnuplot plots.gp
png_term = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) ? 'pngcairo' : 'png'
set grid ytics
set key outside right top

eval sprintf('set terminal %s size 900,540', png_term)
set output 'share-u10-randwrite-4k-qd1.png'
set title 'u10 randwrite bs=4k iodepth=1: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd1.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

set terminal svg size 900,540 dynamic
set output 'share-u10-randwrite-4k-qd1.svg'
set title 'u10 randwrite bs=4k iodepth=1: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd1.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

eval sprintf('set terminal %s size 900,540', png_term)
set output 'share-u10-randwrite-4k-qd2.png'
set title 'u10 randwrite bs=4k iodepth=2: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd2.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

set terminal svg size 900,540 dynamic
set output 'share-u10-randwrite-4k-qd2.svg'
set title 'u10 randwrite bs=4k iodepth=2: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd2.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

eval sprintf('set terminal %s size 900,540', png_term)
set output 'share-u10-randwrite-4k-qd32.png'
set title 'u10 randwrite bs=4k iodepth=32: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd32.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

set terminal svg size 900,540 dynamic
set output 'share-u10-randwrite-4k-qd32.svg'
set title 'u10 randwrite bs=4k iodepth=32: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd32.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

eval sprintf('set terminal %s size 900,540', png_term)
set output 'share-u10-randwrite-4k-qd64.png'
set title 'u10 randwrite bs=4k iodepth=64: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd64.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

set terminal svg size 900,540 dynamic
set output 'share-u10-randwrite-4k-qd64.svg'
set title 'u10 randwrite bs=4k iodepth=64: share of I/Os per path' noenhanced
unset label 1
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -35 noenhanced
set style fill solid 0.8 border -1
unset logscale x
set xlabel 'path'
set ylabel 'share of I/Os (%)'
set yrange [0:*]
plot 'share-u10-randwrite-4k-qd64.dat' using 2:xtic(1) title 'st', '' using 3 title 'hst'

eval sprintf('set terminal %s size 900,540', png_term)
set output 'latency-u10-randwrite-4k.png'
set title 'u10 randwrite bs=4k: completion latency vs iodepth' noenhanced
unset label 1
set style data linespoints
set logscale x 2
set xtics norotate
set xlabel 'iodepth'
set ylabel 'clat (ms)'
set yrange [0:*]
plot 'latency-u10-randwrite-4k.dat' using 1:2 title 'mean st', '' using 1:3 title 'p99 st', '' using 1:4 title 'mean hst', '' using 1:5 title 'p99 hst'

set terminal svg size 900,540 dynamic
set output 'latency-u10-randwrite-4k.svg'
set title 'u10 randwrite bs=4k: completion latency vs iodepth' noenhanced
unset label 1
set style data linespoints
set logscale x 2
set xtics norotate
set xlabel 'iodepth'
set ylabel 'clat (ms)'
set yrange [0:*]
plot 'latency-u10-randwrite-4k.dat' using 1:2 title 'mean st', '' using 1:3 title 'p99 st', '' using 1:4 title 'mean hst', '' using 1:5 title 'p99 hst'
set output
